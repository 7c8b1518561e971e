/** `crystal acp`, taken by src/main.ts before the command tree loads. */
import { runMain } from "../../layers/runtime.ts"
import { runAcp } from "./agent.ts"

export const main = (version: string): void => runMain(runAcp(version))
