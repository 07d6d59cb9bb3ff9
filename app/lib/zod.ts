import { z } from "zod";

// zod 4 probes `new Function` to compile fast parsers. The pages' CSP forbids
// eval (rightly), so the probe would log a CSP violation in every browser that
// loads a schema. Interpreted parsing is plenty fast for these small payloads.
z.config({ jitless: true });

export { z };
