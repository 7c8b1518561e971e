import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { planLocation } from "../../../src/plans/location.ts"
import { maxPlanBytes, PlanFile } from "../../../src/plans/plan-file.ts"
import { makeFifo } from "../../support/fifo.ts"
import { tempDir } from "../../support/temp.ts"

const secret = "sk-PLANSECRET-0123456789"
const redact = (text: string) => Effect.succeed(text.replaceAll(secret, "[redacted]"))

const planFile = async (directory?: string) => {
  const base = await tempDir("crystal-plan-")
  const home = path.join(base, "home")
  const workspace = path.join(base, "ws")
  fs.mkdirSync(workspace)
  const location = planLocation({ home, workspace, directory, sessionId: "s1" })
  return { base, home, workspace, location, plan: await Effect.runPromise(PlanFile.make({ location, redact })) }
}

describe("PlanFile", () => {
  it("is missing until written, then reads back what was written, redacted of the session's secrets", async () => {
    const { plan, home } = await planFile()
    expect(plan.path).toBe(path.join(home, "plans", "s1.md"))
    expect(await Effect.runPromise(plan.read)).toEqual({ _tag: "Missing" })
    await Effect.runPromise(plan.write(`# Plan\n- [ ] rotate ${secret}\n`))
    expect(await Effect.runPromise(plan.read)).toEqual({ _tag: "Read", text: "# Plan\n- [ ] rotate [redacted]\n" })
    expect(fs.statSync(plan.path).mode & 0o777).toBe(0o600)
    expect(await Effect.runPromise(plan.takeApproved)).toBeUndefined()
    await Effect.runPromise(plan.approve({ path: plan.path, text: "approved" }))
    expect(await Effect.runPromise(plan.takeApproved)).toEqual({ path: plan.path, text: "approved" })
    expect(await Effect.runPromise(plan.takeApproved)).toBeUndefined()
  })

  it("writes under plans.directory in the workspace, readable by the project", async () => {
    const { plan, workspace } = await planFile(".crystal/plans")
    await Effect.runPromise(plan.write("- [ ] one\n"))
    expect(plan.path).toBe(path.join(workspace, ".crystal", "plans", "s1.md"))
    expect(fs.readFileSync(plan.path, "utf8")).toBe("- [ ] one\n")
    expect(fs.statSync(plan.path).mode & 0o777).toBe(0o644)
  })

  it("refuses a plan larger than the cap, writing nothing", async () => {
    const { plan } = await planFile()
    const result = await Effect.runPromise(Effect.either(plan.write("x".repeat(maxPlanBytes + 1))))
    expect(Either.isLeft(result) && result.left.message).toBe(`the plan is larger than 256 KiB (${maxPlanBytes + 1} bytes); a plan is prose for a person to approve: keep it shorter`)
    expect(fs.existsSync(plan.path)).toBe(false)
  })

  it("neither reads nor writes through a symbolic link planted at the plan's path", async () => {
    const { plan, base, workspace } = await planFile(".crystal/plans")
    const outside = path.join(base, "outside.txt")
    fs.writeFileSync(outside, "outside text\n")
    fs.mkdirSync(path.join(workspace, ".crystal", "plans"), { recursive: true })
    fs.symlinkSync(outside, plan.path)
    expect(await Effect.runPromise(plan.read)).toEqual({ _tag: "Refused", reason: `${plan.path} is a symbolic link; it was not read` })
    const result = await Effect.runPromise(Effect.either(plan.write("planted\n")))
    expect(Either.isLeft(result) && result.left.message).toBe(
      `the plan file was not written: ${plan.path} is a symbolic link (plans.directory in config.json: every folder on the way must be a real folder inside the workspace)`
    )
    expect(fs.readFileSync(outside, "utf8")).toBe("outside text\n")
  })

  it("does not read a FIFO at the plan's path (it would hang)", async () => {
    const { plan, home } = await planFile()
    fs.mkdirSync(path.join(home, "plans"), { recursive: true })
    makeFifo(plan.path)
    const read = await Effect.runPromise(plan.read)
    expect(read._tag).toBe("Refused")
    expect(read._tag === "Refused" && read.reason).toMatch(/FIFO/)
  })
})
