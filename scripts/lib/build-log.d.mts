/** The lines of `output` that a clean build does not print (its warnings), without colours. */
export function buildWarnings(output: string): string[];
