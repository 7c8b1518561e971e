/**
 * File commands: the ones that only read the files they name (cat, grep, find, jq…) and the ones
 * that write, move or delete them (cp, mv, rm, chmod, sed -i, tar, tee…), with the paths each one
 * touches. find -exec and fd -x run their command through the analyzer.
 */
import * as path from "node:path"
import type { Analyzer, Arg, Handler } from "../types.ts"
import { NO_STDIN, Parsed, type Spec, literal, mayBeOptionAtRunTime, onlyVersionOrHelp, parse, readAll, withPlaceholders, words, writeAll } from "../args.ts"

/** Commands that read the files named by their operands, with the options that take a value. */
export const READ_FILES: Record<string, Spec> = {
  cat: {},
  tac: { short: "s", long: ["separator"] },
  nl: { short: "bdfhilnsvw" },
  head: { short: "nc", long: ["lines", "bytes"] },
  tail: { short: "ncs", long: ["lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"] },
  wc: {},
  less: { short: "bhjkoOpPtTxyz" },
  more: { short: "n" },
  bat: { short: "lHrm", long: ["language", "highlight-line", "line-range", "map-syntax", "style", "theme", "paging", "color", "wrap", "tabs", "terminal-width", "file-name"] },
  batcat: { short: "lHrm", long: ["language", "highlight-line", "line-range", "map-syntax", "style", "theme", "paging", "color", "wrap", "tabs", "terminal-width", "file-name"] },
  stat: { short: "ct", long: ["format", "printf"] },
  file: { short: "mfeFP", long: ["magic-file", "files-from", "exclude", "separator", "parameter"] },
  du: { short: "dBtX", long: ["max-depth", "block-size", "threshold", "exclude-from", "files0-from", "time-style", "time"] },
  df: { short: "tBx", long: ["type", "block-size", "exclude-type", "output"] },
  ls: { short: "IwT", long: ["ignore", "hide", "width", "tabsize", "block-size", "format", "sort", "time", "time-style", "color", "indicator-style", "quoting-style"] },
  dir: { short: "IwT" },
  vdir: { short: "IwT" },
  exa: { short: "LI", long: ["level", "ignore-glob", "sort", "time", "color"] },
  eza: { short: "LI", long: ["level", "ignore-glob", "sort", "time", "color"] },
  realpath: { long: ["relative-to", "relative-base"] },
  readlink: {},
  md5sum: {},
  sha1sum: {},
  sha224sum: {},
  sha256sum: {},
  sha384sum: {},
  sha512sum: {},
  b2sum: { short: "l" },
  shasum: { short: "a" },
  cksum: { short: "a" },
  sum: {},
  zcat: {},
  gzcat: {},
  bzcat: {},
  xzcat: {},
  zstdcat: {},
  lz4cat: {},
  zless: {},
  zmore: {},
  diff: {
    short: "CUxXIFLSWD",
    long: ["context", "unified", "exclude", "exclude-from", "ignore-matching-lines", "show-function-line", "label", "starting-file", "width", "ifdef", "from-file", "to-file", "tabsize", "horizon-lines", "color", "palette", "line-format"]
  },
  diff3: { short: "L", long: ["label", "diff-program"] },
  cmp: { short: "in", long: ["ignore-initial", "bytes"] },
  comm: { long: ["output-delimiter"] },
  join: { short: "aejot12" },
  paste: { short: "d", long: ["delimiters"] },
  cut: { short: "bcdf", long: ["bytes", "characters", "delimiter", "fields", "output-delimiter"] },
  fold: { short: "w", long: ["width"] },
  fmt: { short: "wgp", long: ["width", "goal", "prefix"] },
  expand: { short: "t", long: ["tabs"] },
  unexpand: { short: "t", long: ["tabs"] },
  rev: {},
  column: { short: "csoNRHWEd", long: ["columns", "separator", "output-separator", "table-columns"] },
  strings: { short: "ntTe", long: ["bytes", "radix", "target", "encoding"] },
  od: { short: "AjNtSw", long: ["address-radix", "skip-bytes", "read-bytes", "format", "strings", "width"] },
  hexdump: { short: "efns" },
  hd: { short: "efns" },
  base64: { short: "w", long: ["wrap"] },
  base32: { short: "w", long: ["wrap"] },
  basenc: { short: "w", long: ["wrap"] },
  tsort: {},
  lsattr: {},
  getfacl: {},
  nm: {},
  objdump: { short: "jM" },
  readelf: {},
  size: {},
  cloc: {},
  tokei: { short: "etsoc", long: ["exclude", "type", "sort", "output", "columns"] }
}

/** Commands that only print something and name no file. */
export const NO_PATHS = new Set(words(`
  echo printf pwd which whereis type true false test [ seq yes sleep id whoami groups uname uptime nproc free ps pgrep pidof locale
  printenv basename dirname expr tty arch logname users who w cal ncal getconf lscpu lsblk lsusb lspci lsmod history jobs unset
  shopt umask ulimit hash wait exit return : shift break continue getopts let bc factor numfmt tput stty clear tr dirs times caller
  compgen complete help disown mapfile readarray vmstat iostat top htop sensors lsof netstat ss whatis apropos man info dmesg
  journalctl last getent unalias set sw_vers lsb_release uuidgen jot rs banner fg bg
`))

export const readFiles =
  (spec: Spec): Handler =>
  (a, call) =>
    readAll(a, parse(call.args, spec).operands)

export const noPaths: Handler = () => undefined

/** `read NAME…`: the variables hold run-time input from now on. */
export const read: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "adinNptu" })
  const names = [...parsed.operands, ...parsed.values("-a")].map((arg) => arg.value)
  for (const name of names.length === 0 ? ["REPLY"] : names) if (name !== undefined) a.bind(name, "input")
}

/** `NAME=VALUE` words of export, declare, local, readonly, typeset. */
export const declaration: Handler = (a, call) => {
  const exported = call.base === "export" || call.args.some((arg) => /^-[A-Za-z]*x/.test(arg.value ?? ""))
  for (const arg of call.args) a.assignmentWord(arg, true, exported)
}

/** grep and its relatives: the first operand is the pattern unless -e or -f gave one. */
export const grepLike =
  (spec: Spec, patternOptions: ReadonlyArray<string>): Handler =>
  (a, call) => {
    const parsed = parse(call.args, spec)
    for (const file of parsed.values("-f", "--file")) a.read(file)
    const files = parsed.has(...patternOptions) ? parsed.operands : parsed.operands.slice(1)
    readAll(a, files)
  }

export const GREP_SPEC: Spec = {
  short: "efmABCdD",
  long: ["regexp", "file", "max-count", "after-context", "before-context", "context", "directories", "devices", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files", "group-separator"]
}

export const rg: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "efgtTmABCMjrEd",
    long: words(`
  regexp file glob iglob type type-not type-add type-clear max-count after-context before-context context max-columns threads
  replace encoding max-depth max-filesize path-separator pre pre-glob ignore-file sort sortr color colors context-separator
  field-match-separator field-context-separator dfa-size-limit regex-size-limit engine
`)
  })
  if (parsed.has("--pre")) a.raise("medium", "execute", "runs a preprocessor command")
  for (const file of parsed.values("-f", "--file", "--ignore-file")) a.read(file)
  const noPattern = parsed.has("-e", "--regexp", "-f", "--file", "--files", "--type-list")
  readAll(a, noPattern ? parsed.operands : parsed.operands.slice(1))
}

export const fdFind: Handler = (a, call) => {
  const args = call.args
  const execAt = args.findIndex((arg) => ["-x", "--exec", "-X", "--exec-batch"].includes(arg.value ?? ""))
  const own = execAt === -1 ? args : args.slice(0, execAt)
  const parsed = parse(own, {
    short: "etEdjSocg",
    long: words(`
  extension type exclude max-depth min-depth exact-depth threads size changed-within changed-before owner color max-results
  base-directory search-path ignore-file path-separator format batch-size
`)
  })
  const roots = [...parsed.operands.slice(1), ...parsed.values("--search-path")]
  // fd prefixes the paths it passes to -x/-X with ./ so that none reads as an option, unless told not to.
  const stripped = own.some((arg) => arg.value !== undefined && arg.value.startsWith("--strip-cwd-prefix") && arg.value !== "--strip-cwd-prefix=never")
  if (execAt !== -1 && stripped) a.raise("medium", "execute", "fd --strip-cwd-prefix passes the command it runs file names that may start with - (options)")
  a.inDir(parsed.value("--base-directory"), () => {
    readAll(a, roots)
    if (execAt !== -1) {
      let command = args.slice(execAt + 1)
      const end = command.findIndex((arg) => arg.value === ";")
      if (end !== -1) command = command.slice(0, end)
      const root = roots.length === 1 ? roots[0] : roots.length === 0 ? literal(".") : undefined
      a.invoke(withPlaceholders(command, root, /\{[/.]*\}|\{\/\/\}|\{\/\.\}/), call.keyPrefix, NO_STDIN(call.io))
    }
  })
}

const FIND_VALUE_TESTS = new Set(words(`
  -name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -user -group -uid -gid -perm -size -mtime -mmin
  -atime -amin -ctime -cmin -newer -anewer -cnewer -maxdepth -mindepth -printf -fstype -links -inum -samefile -lname -ilname -used
  -context -regextype -files0-from -D -O
`))

export const find: Handler = (a, call) => {
  const args = call.args
  // A starting point or test value that expands to `-delete` or `-exec…` is an action.
  for (const arg of args) a.optionGlob(arg, "find", () => false)
  if (args.some(mayBeOptionAtRunTime)) a.raise("medium", "execute", "passes find an argument only known at run time, which may be an action (-delete, -exec)")
  let i = 0
  while (i < args.length && ["-H", "-L", "-P"].includes(args[i]?.value ?? "")) i++
  if (["-D", "-O"].includes(args[i]?.value ?? "")) i += 2
  const roots: Array<Arg> = []
  for (; i < args.length; i++) {
    const value = args[i]?.value
    if (value !== undefined && (value.startsWith("-") || ["(", ")", "!", ","].includes(value))) break
    roots.push(args[i] as Arg)
  }
  if (roots.length === 0) roots.push(literal("."))
  readAll(a, roots)
  const root = roots.length === 1 ? roots[0] : undefined
  for (; i < args.length; i++) {
    const value = args[i]?.value
    if (value === undefined) continue
    if (value === "-exec" || value === "-execdir" || value === "-ok" || value === "-okdir") {
      const start = i + 1
      let end = start
      while (end < args.length && !(args[end]?.value === ";" || (args[end]?.value === "+" && args[end - 1]?.value === "{}"))) end++
      const run = (): void => a.invoke(withPlaceholders(args.slice(start, end), root, "{}"), `${call.keyPrefix}find -exec `, NO_STDIN(call.io))
      // -execdir and -okdir run the command in each found file's directory.
      if (value === "-execdir" || value === "-okdir") a.inRuntimeDir(run)
      else run()
      i = end
    } else if (value === "-delete") {
      for (const each of roots) a.write(underRoot(each), "force-delete")
      a.raise("high", "write", "deletes files")
    } else if (value === "-fprint" || value === "-fprint0" || value === "-fls" || value === "-fprintf") {
      a.write(args[i + 1])
      i += value === "-fprintf" ? 2 : 1
    } else if (value === "-files0-from") {
      a.read(args[i + 1])
      i++
    } else if (FIND_VALUE_TESTS.has(value) || value.startsWith("-newer")) {
      i++
    }
  }
}

const underRoot = (root: Arg): Arg => {
  const value = root.value
  if (value === undefined) return root
  const base = value.replace(/\/+$/, "")
  return { ...root, value: base === "" ? "/*" : base === "." ? "*" : `${base}/*`, glob: true }
}

export const jq: Handler = (a, call) => {
  const args = call.args
  let filterSeen = false
  let positional = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (v !== undefined && !positional && v.startsWith("-") && v !== "-") {
      if (v === "--arg" || v === "--argjson") i += 2
      else if (v === "--slurpfile" || v === "--rawfile") {
        a.read(args[i + 2])
        i += 2
      } else if (v === "-f" || v === "--from-file") {
        a.read(args[i + 1])
        filterSeen = true
        i++
      } else if (v === "-L" || v === "--indent") i++
      else if (v === "--args" || v === "--jsonargs") positional = true
      continue
    }
    if (!filterSeen) filterSeen = true
    else if (!positional) a.read(arg)
  }
}

export const yq: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "opIe", long: ["output-format", "input-format", "indent", "expression", "front-matter"] })
  const inPlace = parsed.has("-i", "--inplace")
  const first = parsed.operands[0]
  const files = first !== undefined && /\.(ya?ml|json|xml|toml|properties|csv|tsv)$/i.test(first.value ?? "") ? parsed.operands : parsed.operands.slice(1)
  if (inPlace) writeAll(a, files)
  else readAll(a, files)
}

export const sort: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "kotTS",
    long: ["key", "output", "field-separator", "temporary-directory", "buffer-size", "parallel", "compress-program", "files0-from", "random-source", "batch-size", "sort"]
  })
  if (parsed.has("--compress-program")) a.raise("medium", "execute", "runs a compression program")
  readAll(a, parsed.operands)
  a.write(parsed.value("-o", "--output"))
}

export const uniq: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "fsw", long: ["skip-fields", "skip-chars", "check-chars", "group", "all-repeated"] })
  inputThenOutput(a, parsed.operands)
}

/**
 * `uniq IN OUT`, `xxd IN OUT`: the second operand is written. A glob given alone may expand to two
 * names (`uniq *`), the second of which is then written.
 */
const inputThenOutput = (a: Analyzer, operands: ReadonlyArray<Arg>): void => {
  const [input, output] = operands
  a.read(input)
  if (output !== undefined) a.write(output)
  else if (input !== undefined && (input.glob || input.candidates?.some((candidate) => candidate.glob) === true)) a.write(input, "plain", "a glob given alone may expand to an input and an output file")
}

export const xxd: Handler = (a, call) => {
  const operands: Array<Arg> = []
  const withValue = new Set(["-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name"])
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i] as Arg
    const v = arg.value
    if (v !== undefined && v.startsWith("-") && v !== "-") {
      if (withValue.has(v)) i++
      continue
    }
    operands.push(arg)
  }
  inputThenOutput(a, operands)
}

export const tree: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "LIPHTo", long: ["charset", "filelimit", "timefmt", "sort", "fromfile"] })
  readAll(a, parsed.operands)
  a.write(parsed.value("-o"))
}

export const iconv: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "fto", long: ["from-code", "to-code", "output"] })
  readAll(a, parsed.operands)
  a.write(parsed.value("-o", "--output"))
}

export const shuf: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "nio", long: ["head-count", "input-range", "output", "random-source"] })
  if (!parsed.has("-e", "--echo", "-i", "--input-range")) readAll(a, parsed.operands)
  a.write(parsed.value("-o", "--output"))
}

// ---------------------------------------------------------------- writing commands

/** mktemp creates a file or directory, in the temporary directory unless told where. */
export const mktemp: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "p", long: ["tmpdir", "suffix"] })
  if (parsed.has("-u", "--dry-run")) return
  const dir = parsed.value("-p", "--tmpdir")
  const template = parsed.operands[0]
  if (dir !== undefined) a.inDir(dir, () => a.write(template ?? literal(".")))
  else if (template?.value?.includes("/") === true && !parsed.has("-t")) a.write(template)
  else a.raise("medium", "write", "creates a temporary file")
}

export const touch: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "drtA", long: ["date", "reference", "time"] })
  a.read(parsed.value("-r", "--reference"))
  writeAll(a, parsed.operands)
}

export const mkdir: Handler = (a, call) => writeAll(a, parse(call.args, { short: "mZ", long: ["mode", "context"] }).operands)

export const rmdir: Handler = (a, call) => writeAll(a, parse(call.args).operands, "delete")

export const unlink: Handler = (a, call) => writeAll(a, parse(call.args).operands, "delete")

export const rm: Handler = (a, call) => {
  const parsed = parse(call.args)
  if (parsed.has("--no-preserve-root")) a.forbid("deletes with --no-preserve-root", "write")
  const strong = parsed.has("-r", "-R", "--recursive", "-f", "--force")
  writeAll(a, parsed.operands, strong ? "force-delete" : "delete")
}

export const shred: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "ns", long: ["iterations", "size", "random-source", "remove"] })
  a.raise("high", "write", "destroys file contents")
  writeAll(a, parsed.operands, "delete")
}

export const truncate: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "sr", long: ["size", "reference"] })
  a.read(parsed.value("-r", "--reference"))
  a.raise("high", "write", "truncates files")
  writeAll(a, parsed.operands)
}

/** cp, mv, install, ln: sources and a destination, or `-t DIR`. */
export const copyLike =
  (kind: "cp" | "mv" | "install" | "ln"): Handler =>
  (a, call) => {
    const parsed = parse(call.args, {
      short: kind === "install" ? "mogtSZ" : "tSZ",
      long: ["target-directory", "suffix", "mode", "owner", "group", "context"]
    })
    const target = parsed.value("-t", "--target-directory")
    const operands = parsed.operands
    if (kind === "install" && parsed.has("-d", "--directory")) {
      writeAll(a, operands)
      return
    }
    let sources: ReadonlyArray<Arg> = operands
    let destination: Arg | undefined = target
    if (target === undefined) {
      if (operands.length >= 2 || parsed.has("-T", "--no-target-directory")) {
        sources = operands.slice(0, -1)
        destination = operands[operands.length - 1]
      } else if (kind === "ln" && operands.length === 1) {
        const only = operands[0] as Arg
        destination = only.value === undefined ? only : literal(path.posix.basename(only.value), only)
      }
    }
    if (kind === "mv") {
      for (const source of sources) a.write(source, "delete", "moves files")
      a.write(destination, "plain", "moves files")
      return
    }
    // A hard link shares its target: writing through it writes the target.
    if (kind === "ln" && !parsed.has("-s", "--symbolic")) writeAll(a, sources)
    else if (kind !== "ln") readAll(a, sources)
    a.write(destination)
  }

/** chmod MODE FILE…: `-x` is a mode, not an option. */
export const chmod: Handler = (a, call) => {
  let recursive = false
  let reference = false
  const operands: Array<Arg> = []
  let done = false
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i] as Arg
    const v = arg.value
    if (!done && v !== undefined) {
      if (v === "--") {
        done = true
        continue
      }
      if (v === "--recursive") {
        recursive = true
        continue
      }
      if (v.startsWith("--reference")) {
        reference = true
        if (!v.includes("=")) a.read(call.args[++i])
        else a.read(literal(v.slice(v.indexOf("=") + 1), arg))
        continue
      }
      if (v.startsWith("--")) continue
      if (/^-[cfvR]+$/.test(v)) {
        if (v.includes("R")) recursive = true
        continue
      }
    }
    operands.push(arg)
  }
  const targets = reference ? operands : operands.slice(1)
  if (recursive) a.raise("high", "write", "changes permissions recursively")
  writeAll(a, targets, recursive ? "recursive-perm" : "plain")
}

export const chown: Handler = (a, call) => {
  const parsed = parse(call.args, { long: ["from", "reference"] })
  const reference = parsed.value("--reference")
  a.read(reference)
  const recursive = parsed.has("-R", "--recursive")
  const targets = reference !== undefined ? parsed.operands : parsed.operands.slice(1)
  if (recursive) a.raise("high", "write", "changes ownership recursively")
  writeAll(a, targets, recursive ? "recursive-perm" : "plain")
}

export const dd: Handler = (a, call) => {
  for (const arg of call.args) {
    const v = arg.value
    if (v === undefined) {
      a.raise("high", "write", "writes data with dd")
      continue
    }
    if (v.startsWith("if=")) a.read(literal(v.slice(3), arg))
    if (v.startsWith("of=")) {
      a.raise("high", "write", "overwrites data with dd")
      a.write(literal(v.slice(3), arg))
    }
  }
}

export const tee: Handler = (a, call) => {
  const parsed = parse(call.args)
  writeAll(a, parsed.operands)
  if (call.io.stdinNet) for (const file of parsed.operands) a.markDownloaded(file)
}

export const patch: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "pidoDrBVYzFg",
    long: ["strip", "input", "directory", "output", "reject-file", "prefix", "basename-prefix", "suffix", "version-control", "ifdef", "fuzz", "get", "quoting-style"]
  })
  const dryRun = parsed.has("--dry-run", "-C", "--check")
  a.read(parsed.value("-i", "--input"))
  a.inDir(parsed.value("-d", "--directory"), () => {
    if (dryRun) return
    const [original, patchFile] = parsed.operands
    a.read(patchFile)
    if (original !== undefined) a.write(original)
    else a.workdir("write")
    a.write(parsed.value("-o", "--output"))
    a.write(parsed.value("-r", "--reject-file"))
  })
}

const TAR_SHORT_VALUES = "fCTXbKNgVLFHI"
export const tar: Handler = (a, call) => {
  let args = call.args
  const first = args[0]?.value
  const opts: Array<{ name: string; value: Arg | undefined }> = []
  if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
    // Old style: `tar xzf archive.tgz` — letters first, their values follow in order.
    let next = 1
    for (const letter of first) {
      opts.push({ name: `-${letter}`, value: TAR_SHORT_VALUES.includes(letter) ? args[next++] : undefined })
    }
    args = args.slice(next)
  }
  const parsed = parse(args, {
    short: TAR_SHORT_VALUES,
    long: words(`
  file directory files-from exclude-from to-command use-compress-program checkpoint-action transform owner group mode format newer
  after-date label blocking-factor info-script new-volume-script rmt-command rsh-command index-file listed-incremental volno-file
`)
  })
  const all = new Parsed([...opts, ...parsed.opts], parsed.operands)
  if (all.has("--to-command", "-I", "--use-compress-program", "--checkpoint-action", "-F", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command")) {
    a.raise("medium", "execute", "runs commands from tar")
  }
  const archive = all.value("-f", "--file")
  const archiveIsStd = archive === undefined || archive.value === "-"
  if (archive?.value !== undefined && /^[^/]*:/.test(archive.value)) a.network("reads or writes a remote archive")
  a.read(all.value("-T", "--files-from"))
  a.read(all.value("-X", "--exclude-from"))
  const dir = all.value("-C", "--directory")
  if (all.has("-x", "--extract", "--get")) {
    if (!archiveIsStd) a.read(archive)
    if (all.has("-P", "--absolute-names")) a.system("extracts members with absolute or .. paths")
    if (all.has("-O", "--to-stdout")) return
    a.inDir(dir, () => a.workdir("write", "extracts files"))
    return
  }
  if (all.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete")) {
    if (!archiveIsStd) a.write(archive)
    a.inDir(dir, () => readAll(a, all.operands))
    return
  }
  if (all.has("-t", "--list", "-d", "--diff", "--compare")) {
    if (!archiveIsStd) a.read(archive)
    return
  }
  if (onlyVersionOrHelp(call.args)) return
  a.raise("medium", "write", "runs tar")
  if (!archiveIsStd) a.write(archive)
}

export const unzip: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "dxP" })
  const [archive] = parsed.operands
  a.read(archive)
  if (parsed.has("-l", "-t", "-v", "-Z", "-p", "-c", "-z")) return
  // `-:` keeps `../` in member names (and `-^` control characters): members land anywhere.
  if (parsed.has("-:", "-^")) a.system("extracts members with .. paths")
  a.inDir(parsed.value("-d"), () => a.workdir("write", "extracts files"))
}

export const zip: Handler = (a, call) => {
  if (call.args.some((arg) => arg.value === "-TT" || arg.value?.startsWith("--unzip-command") === true)) a.raise("medium", "execute", "runs a test command")
  const parsed = parse(call.args, { short: "bnOPtZ", long: ["temp-path", "suffixes", "output-file", "password", "compression-method"] })
  const [archive, ...files] = parsed.operands
  a.write(archive)
  a.write(parsed.value("-O", "--output-file"))
  if (parsed.has("-m", "--move")) writeAll(a, files, "delete")
  else readAll(a, files)
}

/** gzip and friends replace their operands unless told to write to standard output. */
export const compressor: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "SoTMLBb", long: ["suffix", "output", "threads", "memory", "format"] })
  const toStdout = parsed.has("-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h", "--help", "-V", "--version")
  const output = parsed.value("-o", "--output")
  if (output !== undefined) {
    readAll(a, parsed.operands)
    a.write(output)
    return
  }
  if (toStdout || parsed.operands.length === 0) readAll(a, parsed.operands)
  else writeAll(a, parsed.operands)
}

export const split: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "lbCnat",
    long: ["lines", "bytes", "line-bytes", "number", "suffix-length", "additional-suffix", "separator", "filter"]
  })
  if (parsed.has("--filter")) a.raise("medium", "execute", "runs a filter command")
  const [input, prefix] = parsed.operands
  if (input?.value !== "-") a.read(input)
  a.write(prefix ?? literal("x"))
}

export const csplit: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "fbn", long: ["prefix", "suffix-format", "digits"] })
  a.read(parsed.operands[0])
  a.write(parsed.value("-f", "--prefix") ?? literal("xx"))
}

export const mkfifo: Handler = (a, call) => writeAll(a, parse(call.args, { short: "mZ", long: ["mode", "context"] }).operands)

export const link: Handler = (a, call) => {
  const parsed = parse(call.args)
  a.read(parsed.operands[0])
  a.write(parsed.operands[1])
}

/** awk: reads its files; `system()`, pipes and `print > file` make it execute. */
export const awk: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "Fvfie", long: ["field-separator", "assign", "file", "include", "source", "exec"] })
  const programFiles = parsed.values("-f", "--file", "--exec", "-E")
  for (const file of programFiles) a.read(file)
  const inPlace = parsed.values("-i", "--include").some((arg) => arg.value === "inplace")
  const sources = parsed.values("-e", "--source")
  const operands = programFiles.length > 0 || sources.length > 0 ? parsed.operands : parsed.operands.slice(1)
  const programs = programFiles.length > 0 || sources.length > 0 ? sources : parsed.operands.slice(0, 1)
  if (programFiles.length > 0) a.raise("medium", "execute", "runs an awk program file")
  for (const program of programs) {
    if (program.value === undefined || awkReachesOut(program.value)) a.raise("medium", "execute", "awk program runs commands or writes files")
  }
  const files = operands.filter((arg) => arg.value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg.value))
  if (inPlace) writeAll(a, files)
  else readAll(a, files)
}

export const awkReachesOut = (program: string): boolean => {
  // Blank out strings and regular expression literals, then look for system(), pipes and redirections.
  let stripped = ""
  let previous = ""
  for (let i = 0; i < program.length; i++) {
    const c = program[i] as string
    if (c === '"') {
      let j = i + 1
      while (j < program.length && program[j] !== '"') j += program[j] === "\\" ? 2 : 1
      stripped += '""'
      i = j
      previous = '"'
      continue
    }
    if (c === "/" && !/[A-Za-z0-9_)\]$."]/.test(previous)) {
      let j = i + 1
      while (j < program.length && program[j] !== "/" && program[j] !== "\n") j += program[j] === "\\" ? 2 : 1
      stripped += "//"
      i = j
      previous = "/"
      continue
    }
    if (c === "#") {
      while (i < program.length && program[i] !== "\n") i++
      continue
    }
    stripped += c
    if (!/\s/.test(c)) previous = c
  }
  if (/\bsystem\s*\(/.test(stripped)) return true
  if (/(^|[^|])\|(?!\|)/.test(stripped)) return true
  return /\bprintf?\b[^;{}\n]*>/.test(stripped)
}
