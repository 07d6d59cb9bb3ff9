import type { AppLoadContext, ServerBuild } from "react-router";

/**
 * A stand-in React Router build for testing the server's page handling
 * (cache, single flight, cross-site posts) without Vite: one root route and
 * one page (at / and at every other path) whose loader, action and HTML the test supplies. React
 * Router itself is real; only the route modules are written here.
 */
export type FakePage = {
  loader?: (args: { request: Request; context: AppLoadContext }) => unknown;
  action?: (args: { request: Request; context: AppLoadContext }) => unknown;
  /** The document for a page request; `nonce` is the response's CSP nonce. */
  html?: (args: { data: unknown; nonce: string; request: Request; headers: Headers }) => string;
};

const route = (id: string, path: string | undefined, parentId?: string, hasAction = false) => ({
  id,
  parentId,
  path,
  index: path === undefined ? true : undefined,
  hasAction,
  hasLoader: true,
  hasClientAction: false,
  hasClientLoader: false,
  hasClientMiddleware: false,
  hasErrorBoundary: false,
  module: `/${id}.js`,
  imports: [],
});

export function fakeReactRouterBuild(page: FakePage): ServerBuild {
  const defaultHtml: NonNullable<FakePage["html"]> = ({ data, nonce }) =>
    `<!DOCTYPE html><html><body><main>${JSON.stringify(data)}</main><script nonce="${nonce}">window.__page = 1;</script></body></html>`;
  const module = {
    default: () => null,
    loader: (args: { request: Request; context: AppLoadContext }) => page.loader?.(args) ?? {},
    action: (args: { request: Request; context: AppLoadContext }) => page.action?.(args) ?? null,
  };
  return {
    entry: {
      module: {
        default: (
          request: Request,
          status: number,
          headers: Headers,
          context: { staticHandlerContext: { loaderData: Record<string, unknown> } },
          loadContext: AppLoadContext,
        ) => {
          headers.set("Content-Type", "text/html; charset=utf-8");
          const { loaderData } = context.staticHandlerContext;
          const data = loaderData.page ?? loaderData.index;
          const html = (page.html ?? defaultHtml)({ data, nonce: loadContext.cspNonce, request, headers });
          return new Response(html, { status, headers });
        },
      },
    },
    routes: {
      root: { id: "root", path: "", module: { default: () => null, loader: () => ({}) } },
      index: { id: "index", parentId: "root", index: true, module },
      page: { id: "page", parentId: "root", path: "*", module },
    },
    assets: {
      entry: { imports: [], module: "/entry.js" },
      routes: {
        root: route("root", ""),
        index: route("index", undefined, "root", true),
        page: route("page", "*", "root", true),
      },
      url: "/manifest.js",
      version: "test",
    },
    publicPath: "/",
    assetsBuildDirectory: "/nonexistent",
    future: {},
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: "initial", manifestPath: "/__manifest" },
  } as unknown as ServerBuild;
}
