/** "1 note", "3 notes", "1,204 rows"; `many` for irregular plurals. One helper for every message. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
