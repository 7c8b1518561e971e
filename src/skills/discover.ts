/**
 * Skills (SPEC T7): folders holding a SKILL.md whose front matter names and describes them, under
 * ~/.crystal/skills and <workspace>/.crystal/skills. The workspace wins on a name clash; a folder
 * whose SKILL.md is missing or malformed is skipped with a note, never repaired.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { crystalHomeRoot, maxInstructionBytes, readConfined, workspaceRoot, type ConfinedRoot } from "../files/confined-read.ts"

export interface Skill {
  readonly name: string
  readonly description: string
  readonly dir: string
  readonly file: string
  readonly source: "home" | "workspace"
  /** What its SKILL.md must stay inside when the skill tool reads it again: the Crystal home or the workspace. */
  readonly root: ConfinedRoot
}

export interface SkillDiscovery {
  readonly skills: ReadonlyArray<Skill>
  readonly notes: ReadonlyArray<string>
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const maxDescription = 1024

export interface FrontMatter {
  readonly fields: Readonly<Record<string, string>>
  readonly body: string
}

const unquote = (value: string): string => {
  const trimmed = value.trim()
  if (trimmed.length >= 2 && (trimmed[0] === '"' || trimmed[0] === "'") && trimmed.at(-1) === trimmed[0]) return trimmed.slice(1, -1)
  return trimmed
}

/** `---` / `key: value` lines / `---`, then the body; undefined when the file does not start that way. */
export const parseFrontMatter = (text: string): FrontMatter | undefined => {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n")
  if (!normalized.startsWith("---\n")) return undefined
  const end = normalized.indexOf("\n---", 4)
  if (end < 0) return undefined
  const fields: Record<string, string> = {}
  for (const line of normalized.slice(4, end).split("\n")) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue
    const colon = line.indexOf(":")
    if (colon <= 0) return undefined
    fields[line.slice(0, colon).trim()] = unquote(line.slice(colon + 1))
  }
  const rest = normalized.slice(end + 4)
  return { fields, body: rest.startsWith("\n") ? rest.slice(1) : rest }
}

const discoverIn = (root: string, source: Skill["source"], confinedTo: ConfinedRoot, notes: Array<string>): Array<Skill> => {
  let entries: Array<fs.Dirent>
  try {
    entries = fs.readdirSync(root, { withFileTypes: true })
  } catch {
    return []
  }
  const skills: Array<Skill> = []
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!entry.isDirectory()) continue
    const dir = path.join(root, entry.name)
    const file = path.join(dir, "SKILL.md")
    const read = readConfined(confinedTo, file, maxInstructionBytes)
    if (read._tag !== "Read") {
      notes.push(read._tag === "Refused" ? `${read.note}; skill folder ${dir} skipped.` : `Skill folder ${dir} has no readable SKILL.md; skipped.`)
      continue
    }
    const text = read.text
    const parsed = parseFrontMatter(text)
    const name = parsed?.fields["name"] ?? ""
    const description = parsed?.fields["description"] ?? ""
    if (parsed === undefined) {
      notes.push(`${file}: expected front matter (--- name: ... description: ... ---) at the top; skipped.`)
    } else if (!namePattern.test(name)) {
      notes.push(`${file}: front matter "name" must be 1–64 letters, digits, '.', '_' or '-' (got ${JSON.stringify(name)}); skipped.`)
    } else if (description === "" || description.length > maxDescription) {
      notes.push(`${file}: front matter "description" must be 1–${maxDescription} characters; skipped.`)
    } else {
      skills.push({ name, description, dir, file, source, root: confinedTo })
    }
  }
  return skills
}

/**
 * `roots`: what each side's SKILL.md files must stay inside (src/files/confined-read.ts): the
 * Crystal home and the workspace, not the skills folders themselves.
 */
export const discoverSkills = (
  homeSkillsDir: string,
  workspaceSkillsDir: string,
  roots: { readonly home: string; readonly workspace: string }
): SkillDiscovery => {
  const notes: Array<string> = []
  const byName = new Map<string, Skill>()
  for (const skill of discoverIn(homeSkillsDir, "home", crystalHomeRoot(roots.home), notes)) byName.set(skill.name, skill)
  for (const skill of discoverIn(workspaceSkillsDir, "workspace", workspaceRoot(roots.workspace), notes)) byName.set(skill.name, skill)
  return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), notes }
}

/** The {{skills}} block of the system text. */
export const skillsListing = (skills: ReadonlyArray<Skill>): string =>
  skills.length === 0
    ? ""
    : `Load one with the skill tool when the task matches its description:\n${skills.map((skill) => `- ${skill.name}: ${skill.description}`).join("\n")}`
