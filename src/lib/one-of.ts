/** Whether `value` is one of the `as const` set `values`; narrows it to the set's type. */
export function isOneOf<const T extends readonly unknown[]>(values: T, value: unknown): value is T[number] {
  return values.includes(value);
}
