/** "1 line", "3 lines", "2 entries" (`many` for a plural that is not `one` + "s"). */
export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`
