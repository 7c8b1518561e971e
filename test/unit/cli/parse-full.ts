/** What the full @effect/cli tree makes of a command line, or undefined when it refuses it. */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import { commandTree } from "../../../src/cli/commands.ts"
import type { Invocation } from "../../../src/cli/flags.ts"

export const parseFull = async (argv: ReadonlyArray<string>): Promise<Invocation | undefined> => {
  let seen: Invocation | undefined
  const tree = commandTree(
    (invocation) => {
      seen = invocation
      return Effect.succeed(0)
    },
    () => {}
  )
  const program = Command.run(tree, { name: "Crystal", version: "test" })(["node", "crystal", ...argv]).pipe(
    Effect.provide(NodeContext.layer),
    Effect.catchAll(() => Effect.void)
  )
  await Effect.runPromise(program)
  return seen
}
