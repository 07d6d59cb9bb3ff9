import type { Config } from "@react-router/dev/config";

export default {
  // Server-side rendering: every public page's HTML carries its content.
  ssr: true,
} satisfies Config;
