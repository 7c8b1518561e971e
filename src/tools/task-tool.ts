/**
 * The `task` tool (issue 26): the model hands a piece of work to a child agent, which runs its own
 * conversation to the end and answers with its final text. The tool only files the request: the
 * session's TaskRunner (src/engine/task-child.ts) runs the child with the caller's services, so a
 * child's powers are always cut from its parent's.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AgentDefinition } from "../agents/definition.ts"
import * as P from "./params.ts"
import { defineTool, everyMode, ToolError, type Tool, type ToolOutput } from "./tool.ts"

export const taskToolName = "task"

/** One `task` call, as the runner receives it. */
export interface TaskRequest {
  readonly callId: string
  readonly description: string
  readonly prompt: string
  /** The agent's name; undefined: `general`. */
  readonly agent: string | undefined
}

export interface TaskRunnerShape {
  /** Runs the child to the end; a failure or a denial is an error result, never a made-up one. */
  readonly run: (request: TaskRequest) => Effect.Effect<ToolOutput>
  /** How many `task` calls of one model response run at once. */
  readonly maxParallel: number
}

/** The runner of the agent whose tools are being run: the session's at the root, each child's below it. */
export class TaskRunner extends Context.Tag("crystal/TaskRunner")<TaskRunner, TaskRunnerShape>() {}

export const defaultAgentName = "general"

const agentList = (agents: ReadonlyArray<AgentDefinition>): string =>
  agents.map((agent) => `- ${agent.name}: ${agent.description}`).join("\n")

export const makeTaskTool = (agents: ReadonlyArray<AgentDefinition>): Tool =>
  defineTool({
    name: taskToolName,
    modes: everyMode,
    description:
      "Hand a self-contained piece of work to a child agent. It starts with an empty conversation (give it everything it needs in " +
      "`prompt`), works with a subset of your tools and answers with its final text and the files it changed. Several task calls " +
      "in one response run at the same time. Agents:\n" +
      agentList(agents),
    parameters: P.object({
      description: P.string("A few words saying what the child does (shown to the operator)."),
      prompt: P.string("The child's instructions: the task, what it needs to know, and what to answer with."),
      agent: P.optional(P.string(`The agent to run (default "${defaultAgentName}").`))
    }),
    // The call itself touches nothing: each of the child's calls is classified and approved on its own.
    classify: (args) =>
      Effect.succeed({ risk: "low", authority: "read", scope: "workspace", summary: `start agent ${args.agent ?? defaultAgentName}: ${args.description}`, paths: [] }),
    run: (args, context) =>
      Effect.flatMap(Effect.serviceOption(TaskRunner), (runner) =>
        Option.isNone(runner) || context.callId === undefined
          ? Effect.fail(new ToolError({ message: "task: no agent can be started here" }))
          : runner.value.run({ callId: context.callId, description: args.description, prompt: args.prompt, agent: args.agent })
      )
  })
