import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { checkpointSettingsFrom } from "../../../src/checkpoints/settings.ts"
import { defaultCheckpointSettings } from "../../../src/checkpoints/store.ts"
import { parseConfigText } from "../../../src/config/load.ts"

const file = "/home/u/.crystal/config.json"
const left = (text: string): string => {
  const result = parseConfigText(file, text)
  return Either.isLeft(result) ? result.left.message : "accepted"
}

describe("checkpoints in config.json", () => {
  it("takes the three bounds, each optional, over the defaults", () => {
    expect(left('{"checkpoints": {"maxFileBytes": 1048576, "maxBytes": 1073741824, "keepDays": 7}}')).toBe("accepted")
    expect(left('{"checkpoints": {}}')).toBe("accepted")
    expect(checkpointSettingsFrom({ keepDays: 7 })).toEqual({ ...defaultCheckpointSettings, keepDays: 7 })
    expect(checkpointSettingsFrom(undefined)).toEqual(defaultCheckpointSettings)
  })

  it.each([
    ['{"checkpoints": {"maxBytes": -1}}', /checkpoints\.maxBytes.*a whole number of bytes above 0 \(e\.g\. 2147483648\)/],
    ['{"checkpoints": {"maxFileBytes": 1.5}}', /checkpoints\.maxFileBytes.*a whole number of bytes above 0/],
    ['{"checkpoints": {"keepDays": 0}}', /checkpoints\.keepDays.*a number of days above 0 \(e\.g\. 30\)/],
    ['{"checkpoints": {"maxbytes": 5}}', /checkpoints.*maxbytes/],
    ['{"checkpoints": true}', /checkpoints/]
  ])("%s is refused in one line naming the field", (text, pattern) => {
    const message = left(text)
    expect(message).toMatch(pattern)
    expect(message.includes("\n")).toBe(false)
  })
})
