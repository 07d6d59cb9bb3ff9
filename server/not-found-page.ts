import { matchRoutes, type RouteObject, type ServerBuild } from "react-router";

/**
 * The not-found page depends only on its section, so it is rendered once per section and cached (decision 0049).
 * The cache key for a request that gets it, or null.
 */
export function notFoundKeys(build: ServerBuild): (method: string, url: string) => string | null {
  const tree = routeTree(build.routes, undefined);
  const topLevelPaths = new Set(
    Object.values(build.routes).flatMap((route) => (route?.path && route.path !== "*" ? [route.path] : [])),
  );
  return (method, url) => {
    if (method !== "GET" && method !== "HEAD") return null;
    // Query strings and React Router's own requests (.data, the route manifest) render as usual.
    if (url.includes("?") || url.endsWith(".data") || url.startsWith("/__")) return null;
    const matches = matchRoutes(tree, url);
    if (matches?.at(-1)?.route.path !== "*") return null;
    const section = url.split("/")[1] ?? "";
    return `404 /${topLevelPaths.has(section) ? section : ""}`;
  };
}

function routeTree(routes: ServerBuild["routes"], parentId: string | undefined): RouteObject[] {
  return Object.values(routes).flatMap((route) =>
    route && route.parentId === parentId
      ? [
          {
            id: route.id,
            path: route.path,
            index: route.index,
            caseSensitive: route.caseSensitive,
            children: routeTree(routes, route.id),
          } as RouteObject,
        ]
      : [],
  );
}
