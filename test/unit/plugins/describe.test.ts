import { describe, expect, it } from "vitest"
import { definePlugin } from "../../../src/plugins/api.ts"
import { describePlugin, pluginFields, pluginNotes, summarizePlugin } from "../../../src/plugins/describe.ts"
import type { LoadedPlugin } from "../../../src/plugins/loaded.ts"

const loaded = (plugin: LoadedPlugin["plugin"], notes: ReadonlyArray<string> = []): LoadedPlugin => ({
  name: plugin.name ?? "acme",
  folder: "acme",
  dir: "/h/plugins/acme",
  entry: "/h/plugins/acme/index.mjs",
  plugin,
  notes
})

describe("describing a plugin", () => {
  it("lists hooks and raw hooks in the API's order, placeholders sorted, raw hooks flagged with the host's notice first", () => {
    const plugin = loaded(
      definePlugin({
        name: "Acme",
        hooks: { onToolCall: () => undefined, onPrompt: () => "x" },
        rawHooks: { rewriteApproval: () => undefined, rewritePrompt: () => "" },
        placeholders: { zeta: () => "z", branch: () => "b" }
      }),
      ['/h/plugins/acme/index.mjs: "hooks.onPromt" is not a known hook; ignored.']
    )
    expect(summarizePlugin(plugin)).toEqual({
      hooks: ["onPrompt", "onToolCall"],
      rawHooks: ["rewritePrompt", "rewriteApproval"],
      placeholders: ["branch", "zeta"]
    })
    expect(describePlugin(plugin)).toEqual([
      "Plugin 'Acme'",
      "  Folder        acme",
      "  Entry         /h/plugins/acme/index.mjs",
      "  Hooks         onPrompt, onToolCall",
      "  Raw hooks     rewritePrompt, rewriteApproval (privileged: not held to the hook rules)",
      "  Placeholders  {{branch}}, {{zeta}}",
      "  Note: Plugin 'Acme' registered a raw hook.",
      '  Note: /h/plugins/acme/index.mjs: "hooks.onPromt" is not a known hook; ignored.'
    ])
  })

  it("says none for what a plugin does not have, and has no notes then", () => {
    const plugin = loaded({})
    expect(pluginFields(plugin)).toEqual([
      ["Name", "acme"],
      ["Folder", "acme"],
      ["Entry", "/h/plugins/acme/index.mjs"],
      ["Hooks", "none"],
      ["Raw hooks", "none"],
      ["Placeholders", "none"]
    ])
    expect(pluginNotes(plugin)).toEqual([])
    expect(pluginNotes({ ...plugin, notes: undefined })).toEqual([])
  })
})
