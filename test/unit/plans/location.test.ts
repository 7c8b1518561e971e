import { describe, expect, it } from "vitest"
import { planLocation } from "../../../src/plans/location.ts"

describe("planLocation", () => {
  it("puts the plan under the Crystal home by default, owner-only, named by the session id", () => {
    expect(planLocation({ home: "/h/.crystal", workspace: "/w", sessionId: "20261203-abc_1" })).toEqual({
      root: "/h/.crystal",
      rootLabel: "the Crystal home",
      folders: ["plans"],
      name: "20261203-abc_1.md",
      file: "/h/.crystal/plans/20261203-abc_1.md",
      private: true
    })
  })

  it("puts it in plans.directory inside the workspace, the folder read as plain names", () => {
    expect(planLocation({ home: "/h", workspace: "/w", directory: "./.crystal//plans/", sessionId: "s1" })).toMatchObject({
      root: "/w",
      rootLabel: "the workspace",
      folders: [".crystal", "plans"],
      file: "/w/.crystal/plans/s1.md",
      private: false
    })
    expect(planLocation({ home: "/h", workspace: "/w", directory: "docs\\plans", sessionId: "s1" }).folders).toEqual(["docs", "plans"])
  })

  it("never lets a session id name another folder", () => {
    const location = planLocation({ home: "/h", workspace: "/w", sessionId: "../../etc/passwd" })
    expect(location.name).toBe("______etc_passwd.md")
    expect(location.file).toBe("/h/plans/______etc_passwd.md")
  })
})
