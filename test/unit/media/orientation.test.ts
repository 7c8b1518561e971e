import { describe, expect, it } from "vitest"
import { applyOrientation } from "../../../src/media/orientation.ts"

/** A 3×2 image whose red channel numbers its pixels: 1 2 3 / 4 5 6. */
const grid = { width: 3, height: 2, data: Uint8Array.from([1, 2, 3, 4, 5, 6].flatMap((n) => [n, 0, 0, 255])) }
const rows = (pixels: { width: number; height: number; data: Uint8Array }) =>
  Array.from({ length: pixels.height }, (_, y) => Array.from({ length: pixels.width }, (_, x) => pixels.data[(y * pixels.width + x) * 4]))

describe("EXIF orientation", () => {
  it.each([
    [1, [[1, 2, 3], [4, 5, 6]]],
    [2, [[3, 2, 1], [6, 5, 4]]],
    [3, [[6, 5, 4], [3, 2, 1]]],
    [4, [[4, 5, 6], [1, 2, 3]]],
    [5, [[1, 4], [2, 5], [3, 6]]],
    [6, [[4, 1], [5, 2], [6, 3]]],
    [7, [[6, 3], [5, 2], [4, 1]]],
    [8, [[3, 6], [2, 5], [1, 4]]],
    [9, [[1, 2, 3], [4, 5, 6]]]
  ])("orientation %i shows the stored pixels as the camera saw them", (orientation, expected) => {
    expect(rows(applyOrientation(grid, orientation))).toEqual(expected)
  })
})
