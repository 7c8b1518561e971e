/**
 * The host's description of a tool call, written before anything runs (SPEC A1). The approval
 * policy decides from this, never from what the model says about its own call.
 */
import type { Access } from "./path-fence.ts"

export type Risk = "low" | "medium" | "high" | "forbidden"
export type Authority = "read" | "write" | "execute"
export type Scope = "workspace" | "granted" | "outside"

export interface TouchedPath {
  /** Real path, symbolic links resolved. */
  readonly real: string
  readonly access: Access
  readonly scope: Scope
}

export interface Classification {
  readonly risk: Risk
  readonly authority: Authority
  /** The widest scope the call reaches. */
  readonly scope: Scope
  /** One host-written line saying what the call would do, e.g. "read src/a.ts", "run `npm test`". */
  readonly summary: string
  /** The paths the call touches; once a call is approved the fence lets exactly these through. */
  readonly paths: ReadonlyArray<TouchedPath>
  /**
   * What "the same kind of call" means for an allow-for-this-session answer (SPEC A7): the tool
   * plus a command prefix or a path. Undefined when a session grant makes no sense.
   */
  readonly grantKey?: string | undefined
  /**
   * Why the call writes a protected file (git config or hooks, a start-up file, .crystal/…; see
   * protected-files.ts). Such a write asks even in the edit and full approval modes.
   */
  readonly protectedWrite?: string | undefined
  /**
   * A prompt requirement: the call asks the operator wherever the mode would let it run unasked,
   * an allow-for-this-session answer and review mode's reviewer included. Set by a tool's author
   * (`"approval": "always"`) or an approval hook; forbidden calls and plan mode still refuse.
   */
  readonly ask?: true | undefined
}

const riskOrder: ReadonlyArray<Risk> = ["low", "medium", "high", "forbidden"]
const authorityOrder: ReadonlyArray<Authority> = ["read", "write", "execute"]
const scopeOrder: ReadonlyArray<Scope> = ["workspace", "granted", "outside"]

const highest = <A>(order: ReadonlyArray<A>, values: ReadonlyArray<A>, floor: A): A =>
  values.reduce((best, value) => (order.indexOf(value) > order.indexOf(best) ? value : best), floor)

export const maxRisk = (...risks: ReadonlyArray<Risk>): Risk => highest(riskOrder, risks, "low")
export const maxAuthority = (...authorities: ReadonlyArray<Authority>): Authority => highest(authorityOrder, authorities, "read")
export const widestScope = (...scopes: ReadonlyArray<Scope>): Scope => highest(scopeOrder, scopes, "workspace")
