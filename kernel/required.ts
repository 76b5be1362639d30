/**
 * A value the code knows is there (a regular expression's group that matched, an element of an array of checked
 * length, a field the path to this line has set), proven where it is used instead of asserted with `!`: the value as
 * it is, or an `Error` that names what was missing when that knowledge was wrong. Such an error is a defect of the
 * code, not a failure for a caller to handle, so it is a plain `Error` and not one of the error family
 * (`kernel/errors.ts`).
 *
 * @param value the value that must be present
 * @param what what it is, for the message (`the owner in the repository URL`); the value is never quoted
 * @returns `value`, narrowed to neither `undefined` nor `null`
 * @throws Error `missing <what>` when `value` is `undefined` or `null`
 */
export function required<T>(value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) throw new Error(`missing ${what}`);
  return value;
}
