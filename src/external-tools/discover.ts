/**
 * Finding the tool sets (SPEC X1): `<home>/tools/<dir>/tools.json` and
 * `<workspace>/.crystal/tools/<dir>/tools.json`. A project folder of the same name replaces the
 * home set whatever state it is in; `"enabled": false` leaves a set unloaded; a folder with a bad
 * name or a bad manifest is one note and is skipped. Reads only: nothing here runs or writes.
 */
import * as path from "node:path"
import { listManifestFolders, readManifestText } from "../config/manifest-reader.ts"
import { crystalHomeRoot, workspaceRoot, type ConfinedRoot } from "../files/confined-read.ts"
import { isWithin } from "../files/within.ts"
import { fileWords } from "../trust/command-words.ts"
import { hashFiles } from "../trust/hash-files.ts"
import { manifestFileName, parseManifest, setNamePattern, setNameRule, type ToolSetManifest } from "./manifest.ts"

export type ToolSource = "home" | "project"

export interface ToolSetDir {
  readonly name: string
  readonly source: ToolSource
  readonly dir: string
  readonly manifestFile: string
}

export interface ToolSetEntry extends ToolSetDir {
  readonly state: "enabled" | "disabled" | "broken" | "replaced"
  readonly manifest?: ToolSetManifest | undefined
  readonly problem?: string | undefined
}

export interface LoadableSet extends ToolSetDir {
  readonly manifest: ToolSetManifest
  /** The files the set would run, for the trust hash: tools.json, the `./` and `../` command parts, a module's entry. */
  readonly files: ReadonlyArray<string>
  readonly hash: string
}

export interface Discovery {
  /** Every folder found, in listing order (home first, then project, each by name). */
  readonly entries: ReadonlyArray<ToolSetEntry>
  /** The enabled sets, replacement applied. */
  readonly sets: ReadonlyArray<LoadableSet>
  readonly notes: ReadonlyArray<string>
}

export const toolSetRoots = (home: string, workspace: string): Readonly<Record<ToolSource, string>> => ({
  home: path.join(home, "tools"),
  project: path.join(workspace, ".crystal", "tools")
})

/** An argv element naming a file of the set: `./x` or `../x`, relative to the set's folder. */
export const isSetRelative = (part: string): boolean => part.startsWith("./") || part.startsWith("../")

/**
 * The files a set's trust hash covers: tools.json; a module's entry; for exec tools, each `./` or
 * `../` part and its first word (resolved in the set's folder, as it runs: `./a.sh;true` names
 * `a.sh` there) and every other word of the command (trust/command-words.ts) resolved in the
 * workspace root, where exec tools run, kept when it lies inside the workspace
 * (`sh scripts/run.sh`, `node -e "require('./x.cjs')"`). A word naming no file hashes as
 * missing, so a file that appears there later asks again.
 */
export const setFiles = (dir: string, manifest: ToolSetManifest, workspace: string): ReadonlyArray<string> => {
  const files = [path.join(dir, manifestFileName)]
  if (manifest.runner === "module") files.push(path.join(dir, manifest.entry))
  else {
    for (const tool of manifest.tools) {
      for (const part of tool.command) {
        const words = fileWords(part)
        // A `./` part is made absolute in the set's folder as a whole: its first word is the set's file.
        if (isSetRelative(part)) files.push(path.resolve(dir, part), path.resolve(dir, words[0] ?? part))
        const inWorkspace = isSetRelative(part) ? words.slice(1) : words
        files.push(...inWorkspace.map((word) => path.resolve(workspace, word)).filter((file) => file !== workspace && isWithin(workspace, file)))
      }
    }
  }
  return [...new Set(files)]
}

const listDirs = (root: string, source: ToolSource, notes: Array<string>): Array<ToolSetDir> => {
  const listed = listManifestFolders(root, (name) => setNamePattern.test(name))
  if ("unreadable" in listed) {
    notes.push(`${root}: cannot read (${listed.unreadable}); its tool sets are skipped`)
    return []
  }
  const dirs: Array<ToolSetDir> = []
  for (const { name, dir, validName } of listed.folders) {
    if (validName) dirs.push({ name, source, dir, manifestFile: path.join(dir, manifestFileName) })
    else notes.push(`${dir}: a tool set's folder name must be ${setNameRule}; skipped`)
  }
  return dirs
}

/** tools.json is read only as a regular file inside `root` (the Crystal home, or the workspace for a project set). */
const readEntry = (found: ToolSetDir, root: ConfinedRoot): ToolSetEntry => {
  const read = readManifestText(found.manifestFile, root)
  if (read._tag === "Missing") return { ...found, state: "broken", problem: `${found.manifestFile}: missing (a tool set folder needs a tools.json); skipped` }
  if (read._tag === "Refused") return { ...found, state: "broken", problem: `${read.note}; skipped` }
  const parsed = parseManifest(found.manifestFile, read.text)
  if (parsed._tag === "Bad") return { ...found, state: "broken", problem: parsed.problem }
  return { ...found, state: parsed.manifest.enabled ? "enabled" : "disabled", manifest: parsed.manifest }
}

export const discoverToolSets = (home: string, workspace: string): Discovery => {
  const notes: Array<string> = []
  const roots = toolSetRoots(home, workspace)
  const project = listDirs(roots.project, "project", notes).map((entry) => readEntry(entry, workspaceRoot(workspace)))
  const projectNames = new Set(project.map((entry) => entry.name))
  const homeEntries = listDirs(roots.home, "home", notes).map((entry): ToolSetEntry => {
    const read = readEntry(entry, crystalHomeRoot(home))
    // Still read, so `crystal tools` can show and enable it; never loaded while the project's set exists.
    return projectNames.has(entry.name) ? { ...read, state: "replaced" } : read
  })
  const entries = [...homeEntries, ...project]
  for (const entry of entries) if (entry.problem !== undefined && entry.state !== "replaced") notes.push(entry.problem)
  const sets = entries.flatMap((entry): Array<LoadableSet> => {
    if (entry.state !== "enabled" || entry.manifest === undefined) return []
    const files = setFiles(entry.dir, entry.manifest, workspace)
    return [{ name: entry.name, source: entry.source, dir: entry.dir, manifestFile: entry.manifestFile, manifest: entry.manifest, files, hash: hashFiles(files) }]
  })
  return { entries, sets, notes }
}
