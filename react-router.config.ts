import type { Config } from "@react-router/dev/config";

export default {
  // Server-side rendering: every public page's HTML carries its content.
  ssr: true,
  // React Router 7 asks each app to choose these v8 behaviours; unset, every build prints a notice.
  // Each stays off until its change is made on purpose (decision 0050 says why, flag by flag):
  future: {
    // On: the load context must become a RouterContextProvider. server/react-router-handler.ts hands
    // loaders a plain object (services, CSP nonce, client address), which would stop working.
    v8_middleware: false,
    // On: clientLoader/clientAction/HydrateFallback go into their own chunks. No route exports them,
    // so there is nothing to split, and the client chunks the page-weight figures measure stay as they are.
    v8_splitRouteModules: false,
    // On: the SSR build's rollupOptions move under `environments.ssr`. vite.config.ts configures the
    // server entry and the image worker through `isSsrBuild`, as the current API has it.
    v8_viteEnvironmentApi: false,
    // On: loaders see the raw request URL (with `.data` and `?_routes`). Loaders and the page cache
    // (server/page-cache.ts) expect the normalised one.
    v8_passThroughRequests: false,
    // On: the root's data URL becomes `/_.data` instead of `/_root.data`, which server/page-cache.ts
    // caches by name.
    v8_trailingSlashAwareDataRequests: false,
  },
} satisfies Config;
