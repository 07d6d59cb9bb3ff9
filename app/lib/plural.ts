/** "1 enquiry", "3 enquiries", "1,200 visitors": a count with the word that agrees with it. */
export function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString("en-NZ")} ${count === 1 ? one : many}`;
}
