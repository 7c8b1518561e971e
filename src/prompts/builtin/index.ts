/**
 * The built-in texts of the named prompts, embedded in the binary, each with the placeholder
 * slots it declares (SPEC P1). A test holds each declaration to the text.
 */
import type { PromptName } from "../names.ts"
import compactionSystem from "./compaction.system.md" with { type: "text" }
import compactionUser from "./compaction.user.md" with { type: "text" }
import imageSystem from "./image.system.md" with { type: "text" }
import imageUser from "./image.user.md" with { type: "text" }
import plan from "./plan.md" with { type: "text" }
import review from "./review.md" with { type: "text" }
import reviewUser from "./review.user.md" with { type: "text" }
import topic from "./topic.md" with { type: "text" }
import work from "./work.md" with { type: "text" }

export interface BuiltinPrompt {
  readonly text: string
  readonly slots: ReadonlyArray<string>
}

export const builtinPrompts: Readonly<Record<PromptName, BuiltinPrompt>> = {
  work: { text: work, slots: ["product_name", "env", "skills", "instructions_section"] },
  plan: { text: plan, slots: ["product_name", "env", "skills", "instructions_section"] },
  review: { text: review, slots: ["product_name"] },
  "review.user": {
    text: reviewUser,
    slots: ["conversation", "tool_name", "tool_arguments", "host_risk", "host_authority", "classification_summary"]
  },
  topic: { text: topic, slots: ["conversation"] },
  "compaction.system": { text: compactionSystem, slots: ["product_name"] },
  "compaction.user": {
    text: compactionUser,
    slots: ["prior_summary_section", "conversation", "todos_section", "summary_task", "output_template"]
  },
  "image.system": { text: imageSystem, slots: ["product_name"] },
  "image.user": { text: imageUser, slots: ["question"] }
}
