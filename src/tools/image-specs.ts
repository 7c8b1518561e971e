/**
 * The model-facing definitions of the image tools (SPEC I7); their implementations
 * (view-image.ts, describe-image.ts) are imported on first use. Both read through the read fence
 * and are offered in plan and work mode: view_image only while the active model takes images,
 * describe_image only when config.json names an imageModel.
 */
import { classifyPaths } from "../approval/classify-paths.ts"
import * as P from "./params.ts"
import { everyMode, toolSpec } from "./tool.ts"

/** The tools' names, each written once: the spec and its classification use it. */
const names = {
  viewImage: "view_image",
  describeImage: "describe_image"
} as const

export const viewImageSpec = toolSpec({
  name: names.viewImage,
  modes: everyMode,
  needsImageInput: true,
  description:
    "Look at an image file (PNG, JPEG, GIF or WebP) of the workspace: it is attached to the result, so you see it in your next step. " +
    "An image larger than this model takes is shrunk first.",
  parameters: P.object({
    path: P.string("Image file path (relative to the workspace, or absolute).")
  }),
  classify: (args, context) => classifyPaths(names.viewImage, "read", [args.path], context)
})

export const describeImageSpec = toolSpec({
  name: names.describeImage,
  modes: everyMode,
  description:
    "Have an image model describe an image file (PNG, JPEG, GIF or WebP) of the workspace: its answer comes back as text. " +
    "Ask a question to get what you need (text on a screenshot, an error shown, a chart's values).",
  parameters: P.object({
    path: P.string("Image file path (relative to the workspace, or absolute)."),
    question: P.optional(P.string("What you want to know about the image (default: a full description)."))
  }),
  classify: (args, context) => classifyPaths(names.describeImage, "read", [args.path], context)
})
