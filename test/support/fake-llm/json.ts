/** A property of a parsed JSON value, or undefined when the value is not an object that has it. */
export const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null && Object.hasOwn(value, name)
    ? (value as Readonly<Record<string, unknown>>)[name] // an object with that own property, just checked
    : undefined
