/**
 * The layers of the code, checked by `npm run lint` (docs/ARCHITECTURE.md, "Layers", shows the same):
 *
 *   server/          HTTP, processes, start and stop                     may import app/
 *   app/ UI          routes, root, components, admin views, islands
 *   app/ features    galleries, enquiry photos, contact, content, auth, backups, mail, analytics, …
 *   app/images       the image worker's host and pipelines, under galleries and enquiry photos
 *   app/ foundation  storage, db, lib (and the validated settings, env.server.ts)
 *
 * Each rule below names the import that breaks it. Every exemption is a `pathNot` here and is
 * listed in docs/ARCHITECTURE.md; there is no blanket one for type-only imports.
 */

/** The foundation: object storage, the database, small shared helpers. */
const FOUNDATION = "^app/(storage|db|lib)/";
/** What the foundation may import from app/: itself and the validated settings. */
const FOUNDATION_MAY_IMPORT = [
  "^app/(storage|db|lib)/",
  "^app/env[.]server[.]ts$",
  "^app/s3-settings-schema[.]server[.]ts$",
];
/** Modules that are rendered: React Router's route modules and root, components, admin views, islands. */
const UI = "^app/((routes|components|admin|islands)/|root[.]tsx$|entry[.]server[.]tsx$|routes[.]ts$)";
/**
 * Route modules: they hold their loader and action beside the component, and import server
 * code for those. React Router's build removes loader, action and what only they import from the
 * browser bundle, and fails the build if a `*.server` module would still be in it.
 */
const ROUTE_MODULES = "^app/(routes/[^/]+[.]tsx?|root[.]tsx)$";
/** Server-only code: `*.server.ts(x)` files and everything under server/. */
const SERVER_ONLY = "([.]server[.]tsx?$|^server/)";
/** Tests and their helpers belong to no layer. */
const TESTS = "([.]test[.]tsx?$|^tests/|^app/admin/test-(files|helpers)[.]tsx?$)";

/**
 * The folders of app/, lowest first: each imports only folders before it in this list (its own
 * files aside). Foundation, then the features, then what shows them.
 */
const FOLDER_ORDER = [
  ...["lib", "db", "storage"],
  ...["activity", "analytics", "content", "images", "enquiry-photos", "notifications", "auth", "galleries"],
  ...["uploads", "contact", "backups"],
  ...["components", "islands", "admin", "routes"],
];

/** One rule a folder: it may not import a folder above it. */
const folderOrderRules = FOLDER_ORDER.slice(0, -1).map((folder, index) => ({
  name: `folder-order-${folder}`,
  comment:
    `app/${folder} sits below ${FOLDER_ORDER.slice(index + 1).join(", ")} (FOLDER_ORDER in .dependency-cruiser.cjs): ` +
    `it imports none of them. Move the fact both need down into app/${folder} or a folder below it.`,
  severity: "error",
  from: { path: `^app/${folder}/`, pathNot: TESTS },
  to: { path: `^app/(${FOLDER_ORDER.slice(index + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    ...folderOrderRules,
    {
      name: "folder-in-order",
      comment: "A folder of app/ that imports anything has its place in FOLDER_ORDER (.dependency-cruiser.cjs).",
      severity: "error",
      from: { path: "^app/[^/]+/", pathNot: [`^app/(${FOLDER_ORDER.join("|")})/`, TESTS] },
      to: {},
    },
    {
      name: "foundation-imports-no-feature",
      comment:
        "app/storage, app/db and app/lib sit under every feature: they import nothing else from app/. " +
        "Move the shared fact down into the foundation instead.",
      severity: "error",
      from: { path: FOUNDATION, pathNot: TESTS },
      to: { path: "^app/", pathNot: FOUNDATION_MAY_IMPORT },
    },
    {
      name: "migration-imports-no-live-code",
      comment:
        "A migration must run as it was written, whatever the code becomes: it imports nothing from " +
        "app/ or server/. Inline what it needs, as it was then.",
      severity: "error",
      from: { path: "^app/db/migrations/", pathNot: TESTS },
      to: { path: "^(app|server)/", pathNot: "^app/db/migrations/" },
    },
    {
      name: "images-import-no-feature",
      comment:
        "app/images (the image worker's host, the decode, the pipelines' shared facts) sits under the " +
        "galleries and the enquiry photos that use it: it imports only the foundation. A fact both " +
        "sides share (a result's shape, say) lives in app/images.",
      severity: "error",
      from: { path: "^app/images/", pathNot: TESTS },
      to: { path: "^app/", pathNot: ["^app/images/", ...FOUNDATION_MAY_IMPORT] },
    },
    {
      name: "features-import-no-backups",
      comment:
        "Backups copy every feature's rows and files, so they sit above the features: nothing " +
        "but the backups themselves and the UI imports app/backups (server/ and scripts/ may).",
      severity: "error",
      from: { path: "^app/", pathNot: ["^app/backups/", UI, TESTS] },
      to: { path: "^app/backups/" },
    },
    {
      name: "features-import-no-ui",
      comment:
        "Features are beneath the pages and views that show them: a feature (mail, analytics, …) " +
        "imports no route, component, admin view or island. Move the shared fact down (a date format " +
        "to app/lib, say).",
      severity: "error",
      from: {
        path: "^app/",
        pathNot: [UI, TESTS],
      },
      to: { path: UI },
    },
    {
      name: "app-imports-no-server-folder",
      comment: "server/ builds on app/, never the reverse: nothing in app/ imports from server/.",
      severity: "error",
      from: { path: "^app/", pathNot: TESTS },
      to: { path: "^server/" },
    },
    {
      name: "browser-code-reaches-no-server-code",
      comment:
        "A module without .server in its name may end up in the browser bundle (components, admin " +
        "views, islands, facts shared with the browser): it imports no server-only code (*.server.ts, " +
        "server/), not even a type. Route modules reach it only from their loader and action.",
      severity: "error",
      from: { path: "^app/", pathNot: [SERVER_ONLY, ROUTE_MODULES, TESTS] },
      to: { path: SERVER_ONLY },
    },
    {
      name: "no-circular",
      comment: "No import circles: a module never imports, however indirectly, itself.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to no file (React Router's generated +types and Vite's virtual modules aside).",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: ["^virtual:", "/[+]types/"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^build/", "^[.]react-router/", "^node_modules/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
  },
};
