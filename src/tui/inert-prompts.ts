/**
 * @clack/prompts as the dialogs use it, with every text it is given to draw made inert
 * (src/terminal/inert.ts): messages, option labels and hints, placeholders. The dialogs' one choke
 * point: a dialog's text comes from outside more often than not — an MCP server's elicitation
 * message and field titles, the question tool's questions from the model, a sampling request's
 * prompt, a trust question naming a workspace's commands, session titles the model wrote, folder
 * names — and clack draws it as given. Clack's own escapes (cursor, colours) are not touched.
 */
import type { Readable, Writable } from "node:stream"
import { visible } from "../terminal/inert.ts"

/** The streams a dialog reads keys from and draws on. */
export type DialogIo = { readonly input: Readable; readonly output: Writable }

type Clack = typeof import("@clack/prompts")

export type InertPrompts = Pick<Clack, "select" | "multiselect" | "text" | "confirm" | "isCancel">

const inertOption = <O extends { readonly label?: string | undefined; readonly hint?: string | undefined }>(option: O): O => ({
  ...option,
  ...(option.label === undefined ? {} : { label: visible(option.label) }),
  ...(option.hint === undefined ? {} : { hint: visible(option.hint) })
})

export const inertPrompts = (clack: Clack): InertPrompts => ({
  select: (options) => clack.select({ ...options, message: visible(options.message), options: options.options.map(inertOption) }),
  multiselect: (options) => clack.multiselect({ ...options, message: visible(options.message), options: options.options.map(inertOption) }),
  text: (options) =>
    clack.text({ ...options, message: visible(options.message), ...(options.placeholder === undefined ? {} : { placeholder: visible(options.placeholder) }) }),
  confirm: (options) => clack.confirm({ ...options, message: visible(options.message) }),
  isCancel: clack.isCancel
})
