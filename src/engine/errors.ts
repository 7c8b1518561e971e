/** The engine's own failures. Each message is written for the operator and reads well after "because". */
import * as Schema from "effect/Schema"

/** No usable summary came back (request failed, empty answer, a tool call, too slow); the conversation stays as it was. */
export class CompactionFailed extends Schema.TaggedError<CompactionFailed>()("CompactionFailed", {
  message: Schema.String
}) {}

/** The reviewer gave no usable verdict; the call then needs the operator, never runs by itself. */
export class ReviewFailed extends Schema.TaggedError<ReviewFailed>()("ReviewFailed", {
  message: Schema.String
}) {}

/** A command that cannot be carried out as asked (/access remove of a directory not granted, a switch while a turn runs). */
export class CommandRefused extends Schema.TaggedError<CommandRefused>()("CommandRefused", {
  message: Schema.String
}) {}
