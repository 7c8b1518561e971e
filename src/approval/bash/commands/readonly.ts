/**
 * The read-only allowlist, applied after a command's handler has judged it read-only: the call
 * stays read-only only when its program is listed here and every option it passes is one known
 * not to run code or write. Anything else — an unlisted program, an unknown option, an argument
 * only known at run time where an option could stand — makes the call execute, medium risk, so
 * it asks under the default approval mode. A glob where an option could stand is listed when the
 * line is classified (bash/option-globs.ts): a file named `--pre=sh` is an option too. Builtins
 * that evaluate text (`let`, `declare`, `read`, `printf -v`, `test -v`, `unset`, `wait -p`,
 * `mapfile -C`, `compgen`, `hash -p`…) are judged here too.
 */
import type { Analyzer, Arg, Call } from "../types.ts"
import { judgeArithmetic, judgeSubscript, subscriptOf } from "../../../shell/arith.ts"

interface OptionSpec {
  /** Every option of the program was reviewed and none runs code or writes. */
  readonly any: boolean
  readonly flags: string
  readonly valued: string
  readonly long: ReadonlySet<string>
  readonly longValued: ReadonlySet<string>
  /** `-NUM` is allowed (head -5). */
  readonly numeric: boolean
  /** Options end at the first operand; what follows is another command (wrappers). */
  readonly wrapper: boolean
  /** Operands starting with `+` are refused (less runs them as commands). */
  readonly noPlus: boolean
  /** Options that end the program's own options: the rest is a command the handler analyzed. */
  readonly stops: ReadonlySet<string>
  /** Only `--version` / `--help` style calls. */
  readonly versionOnly: boolean
  /** Operands naming a file by path are refused (man renders them with troff, which can run programs). */
  readonly noPaths: boolean
}

/**
 * A compact spec: `*` every option harmless; `-abc` flag letters; `-n=` a letter taking a value;
 * `--name` and `--name=`; `#` allows `-NUM`; `@` wrapper; `!+` refuses `+…` operands; `-x!` or
 * `--exec!` stops there; `version` only version and help.
 */
const spec = (text: string): OptionSpec => {
  let flags = ""
  let valued = ""
  const long = new Set<string>()
  const longValued = new Set<string>()
  const stops = new Set<string>()
  const tokens = text.trim().split(/\s+/)
  for (const token of tokens) {
    if (token.endsWith("!") && token.startsWith("-")) stops.add(token.slice(0, -1))
    else if (token.startsWith("--")) (token.endsWith("=") ? longValued : long).add(token.replace(/=$/, "").slice(2))
    else if (/^-.=$/.test(token)) valued += token[1]
    else if (/^-[^-]/.test(token)) flags += token.slice(1)
  }
  return {
    any: tokens.includes("*"),
    flags,
    valued,
    long,
    longValued,
    numeric: tokens.includes("#"),
    wrapper: tokens.includes("@"),
    noPlus: tokens.includes("!+"),
    stops,
    versionOnly: tokens.includes("version"),
    noPaths: tokens.includes("!/")
  }
}

const LESS = "-NSRrFXiIMmnEeGgJqQsuUwWKaBcCdfL~ -x= -b= -h= -j= -y= -z= -p= -P= -t= -T= # !+"
const BAT = "-pnAP -l= -H= -r= -m= --plain --number --show-all --language= --line-range= --highlight-line= --style= --theme= --paging= --color= --wrap= --tabs= --terminal-width= --file-name= --decorations= --list-languages --list-themes --no-paging"
const AWK = "-cSbnMrPsNO -F= -v= -e= --field-separator= --assign= --source= --posix --traditional --sandbox --characters-as-bytes --non-decimal-data --bignum --re-interval --csv --optimize --no-optimize"
const SUMS = "-bctwz --binary --check --tag --text --zero --ignore-missing --quiet --status --strict --warn -a= -l= --length= --algorithm="

const SPECS: Record<string, string> = {
  // Files: every option of these only changes what is printed.
  cat: "*", tac: "*", nl: "*", wc: "*", rev: "*", head: "*", tail: "*",
  date: "-uRI -d= -r= -f= --date= --utc --universal --rfc-email --rfc-3339= --iso-8601 --iso-8601= --reference= --debug",
  less: LESS, more: "-dlfpcsu -n= #", zless: LESS, zmore: "-dlfpcsu #",
  bat: BAT, batcat: BAT,
  stat: "-fLt -c= --format= --printf= --terse --dereference --file-system --cached=",
  file: "-bchiklLnNrsSzZ0E -m= -e= -F= -P= -f= --brief --mime --mime-type --mime-encoding --dereference --no-dereference --keep-going --raw --special-files --uncompress --no-pad --print0 --extension --apple --separator= --magic-file= --exclude= --parameter= --files-from=",
  du: "-0abcDhHklLmPsSx -d= -t= -B= -X= --all --apparent-size --bytes --total --dereference-args --human-readable --inodes --dereference --no-dereference --separate-dirs --si --summarize --one-file-system --count-links --max-depth= --threshold= --block-size= --exclude= --exclude-from= --time --time= --time-style=",
  df: "*", ls: "*", dir: "*", vdir: "*",
  exa: "-laTRhGx1rsFdDgHiSU -L= -I= -s= --long --all --tree --recurse --level= --ignore-glob= --sort= --color= --colour= --icons --header --group-directories-first --only-dirs --reverse --classify --grid --oneline",
  eza: "-laTRhGx1rsFdDgHiSU -L= -I= -s= --long --all --tree --recurse --level= --ignore-glob= --sort= --color= --colour= --icons --header --group-directories-first --only-dirs --reverse --classify --grid --oneline",
  realpath: "*", readlink: "*",
  md5sum: SUMS, sha1sum: SUMS, sha224sum: SUMS, sha256sum: SUMS, sha384sum: SUMS, sha512sum: SUMS, b2sum: SUMS, shasum: SUMS, cksum: SUMS, sum: "-rs --sysv",
  zcat: "-fqvlt -S= --force --quiet --verbose --list --test --suffix=", gzcat: "-fqv", bzcat: "-sqv", xzcat: "-qvT= --threads=", zstdcat: "-qv", lz4cat: "-qv",
  diff: "*", cmp: "*", comm: "*", join: "*", paste: "*", cut: "*", fold: "*", fmt: "*", expand: "*", unexpand: "*", column: "*", tsort: "*",
  diff3: "-AeExX3imaT -L= --label= --text --merge --strip-trailing-cr --initial-tab --easy-only --overlap-only --show-all --show-overlap",
  strings: "*", od: "*", hexdump: "*", hd: "*", xxd: "*",
  // BSD base64 writes with -o; only the GNU and BSD options that print are listed.
  base64: "-dDi -w= -b= --decode --ignore-garbage --wrap=", base32: "-di -w= --decode --ignore-garbage --wrap=", basenc: "-di -w= --decode --ignore-garbage --wrap= --base64 --base64url --base32 --base32hex --base16 --base2msbf --base2lsbf --z85",
  lsattr: "*", getfacl: "*",
  nm: "-aABCDgloPnprsSuUvVjX -t= -f= --format= --defined-only --undefined-only --demangle --dynamic --extern-only --line-numbers --numeric-sort --portability --reverse-sort --size-sort --print-size --radix= --print-file-name",
  objdump: "-adDSthxfprRsCwlTgeGWFz -j= -M= -b= -m= --disassemble --disassemble= --disassemble-all --source --syms --dynamic-syms --headers --section-headers --all-headers --file-headers --private-headers --reloc --dynamic-reloc --full-contents --demangle --wide --line-numbers --section= --start-address= --stop-address= --no-show-raw-insn --disassembler-options= --insn-width=",
  readelf: "-ahlSgtesrudVAcDInwW -x= -p= -R= --all --file-header --program-headers --segments --section-headers --sections --section-groups --section-details --headers --syms --symbols --dyn-syms --notes --relocs --unwind --dynamic --version-info --arch-specific --archive-index --use-dynamic --hex-dump= --string-dump= --wide --debug-dump= --debug-dump",
  size: "-ABGdoxt --format= --radix= --totals --common",
  cloc: "--quiet --by-file --by-file-by-lang --json --csv --md --yaml --xml --hide-rate --skip-uniqueness --fullpath --exclude-dir= --include-lang= --exclude-lang= --exclude-ext= --include-ext= --match-f= --not-match-f= --match-d= --not-match-d= --max-file-size= --no-recurse",
  tokei: "*",
  // Text and values.
  echo: "*", printf: "*", pwd: "*", true: "*", false: "*", ":": "*", basename: "*", dirname: "*", expr: "*", seq: "*", yes: "*",
  sleep: "*", tr: "*", factor: "*", numfmt: "*", bc: "-lqsw --mathlib --quiet --standard --warn", dc: "", rs: "*", jot: "*", banner: "*", cal: "*", ncal: "*",
  jq: "*", gojq: "*", jaq: "*",
  // Not -f/-E/-i (program files), -l (extensions), -o/-p/-d (write files), -D (debugger).
  awk: AWK, gawk: AWK, mawk: AWK, nawk: AWK,
  yq: "-rePnCMjN -o= -p= -I= --output-format= --input-format= --indent= --prettyPrint --no-colors --colors --exit-status --null-input --no-doc --unwrapScalar --unwrapScalar= --expression= --front-matter=",
  sort: "-bdfgiMhnRrVcCsuzm -k= -t= -S= --key= --field-separator= --buffer-size= --parallel= --sort= --numeric-sort --reverse --unique --human-numeric-sort --version-sort --ignore-case --stable --check --check= --merge --zero-terminated --general-numeric-sort --month-sort --dictionary-order --ignore-leading-blanks --ignore-nonprinting --random-sort --debug",
  uniq: "-cdDuiz -f= -s= -w= --count --repeated --unique --ignore-case --zero-terminated --skip-fields= --skip-chars= --check-chars= --group --group= --all-repeated --all-repeated=",
  tree: "-adfilxDFsughpCnJXrtvUcqNQ -L= -P= -I= --noreport --dirsfirst --gitignore --prune --du --charset= --filelimit= --sort= --matchdirs --ignore-case --si --inodes --device --timefmt=",
  iconv: "-cls -f= -t= --from-code= --to-code= --list --silent",
  shuf: "-erz -n= -i= --head-count= --input-range= --echo --repeat --zero-terminated",
  // Search.
  grep: "*", egrep: "*", fgrep: "*", zgrep: "*", zegrep: "*", zfgrep: "*", rgrep: "*", ggrep: "*",
  ag: "-isSwvlLcQnaufzUo0 -G= -g= -A= -B= -C= -m= -t= --nocolor --color --hidden --depth= --ignore= --ignore-dir= --literal --files-with-matches --files-without-matches --count --vimgrep --column --noheading --nobreak --filename --nofilename --stats --smart-case --case-sensitive --ignore-case --only-matching --skip-vcs-ignores --unrestricted --search-zip --word-regexp --invert-match --file-search-regex= --max-count= --context= --after= --before= --silent --null --print0",
  rg: `-isSwxvlLcnNouazFPUHIqp0b -e= -f= -g= -t= -T= -m= -A= -B= -C= -M= -j= -r= -E= -d= --regexp= --file= --glob= --iglob= --type= --type-not= --type-add= --type-clear=
    --max-count= --after-context= --before-context= --context= --max-columns= --threads= --replace= --encoding= --max-depth= --max-filesize= --color= --colors=
    --path-separator= --context-separator= --field-match-separator= --field-context-separator= --engine= --sort= --sortr= --ignore-file= --hyperlink-format= --dfa-size-limit= --regex-size-limit=
    --hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global --no-ignore-exclude --no-ignore-files --no-require-git --follow --null --pretty --json --vimgrep --column
    --no-heading --heading --files --files-with-matches --files-without-match --count --count-matches --only-matching --line-number --no-line-number --with-filename --no-filename
    --fixed-strings --ignore-case --smart-case --case-sensitive --word-regexp --line-regexp --invert-match --trim --stats --no-messages --quiet --type-list --no-config --passthru
    --glob-case-insensitive --one-file-system --unrestricted --binary --text --crlf --null-data --block-buffered --line-buffered --byte-offset --multiline --multiline-dotall
    --max-columns-preview --include-zero --sort-files --search-zip --pcre2 --no-pcre2-unicode --no-unicode --mmap --no-mmap --debug --trace --ignore-file-case-insensitive --no-follow --no-hidden --no-text`,
  fd: "-HIusiglFapL01qS -e= -E= -t= -d= -S= -o= -j= -c= --hidden --no-ignore --no-ignore-vcs --unrestricted --case-sensitive --ignore-case --glob --regex --fixed-strings --absolute-path --list-details --follow --full-path --print0 --max-results= --quiet --show-errors --strip-cwd-prefix --extension= --exclude= --type= --max-depth= --min-depth= --exact-depth= --size= --changed-within= --changed-before= --owner= --threads= --color= --base-directory= --search-path= --path-separator= --ignore-file= --format= --prune -x! -X! --exec! --exec-batch!",
  // Machine and process information.
  which: "*", whereis: "*", type: "*", uname: "*", uptime: "*", nproc: "*", free: "*", id: "*", whoami: "*", groups: "*", locale: "*", printenv: "*",
  tty: "*", arch: "*", logname: "*", users: "*", who: "*", w: "*", getconf: "*", lscpu: "*", lsblk: "*", lsusb: "*", lspci: "*", lsmod: "*",
  vmstat: "*", iostat: "*", top: "-bcHiSs -n= -d= -p= -u= -U= -o= -w=", htop: "*", sensors: "*", lsof: "*", netstat: "*", ps: "*", pgrep: "*", pidof: "*",
  ss: "-hVnralLmpoeisZNtuwxSO4608 -f= -A= --numeric --resolve --all --listening --options --extended --memory --processes --info --summary --tcp --udp --unix --raw --family= --query=",
  whatis: "*", apropos: "*", getent: "*", last: "*", sw_vers: "*", lsb_release: "*", uuidgen: "*",
  dmesg: "-TkuxLHwrde -l= -f= --ctime --kernel --userspace --decode --color --color= --human --follow --raw --level= --facility= --time-format= --since= --until= --nopager",
  journalctl: "-kbefxqr -u= -n= -p= -g= -o= -S= -U= -t= --unit= --lines= --priority= --grep= --output= --since= --until= --identifier= --boot --boot= --list-boots --no-pager --reverse --follow --catalog --quiet --utc --no-hostname --dmesg --system --user",
  man: "-afkwW --whatis --apropos --where --path !/",
  info: "-kw --apropos= --where --all",
  tput: "-T= -x", stty: "-a -g --all --save size", clear: "-x",
  // Shell builtins that only report or do nothing with effects outside the shell.
  // Not jobs -x (runs a command), unset (evaluates subscripts) and wait -p (assigns a name): builtins below.
  jobs: "-lnprs", umask: "*", ulimit: "*", exit: "*", return: "*", shift: "*", break: "*", continue: "*", dirs: "*", times: "*",
  caller: "*", help: "*", disown: "*", fg: "*", bg: "*", unalias: "*", alias: "*", cd: "-LPe@", chdir: "-LPe@", pushd: "-n", popd: "-n", kill: "-lL --list",
  // Wrappers: their command is judged on its own.
  time: "-pv --portability --verbose @", nice: "-n= --adjustment= @", nohup: "@", stdbuf: "-i= -o= -e= --input= --output= --error= @",
  timeout: "-v -s= -k= --signal= --kill-after= --preserve-status --foreground --verbose @", setsid: "-fw @", command: "-pvV @", builtin: "@", exec: "-cl -a= @",
  env: "-i0 -u= -C= --ignore-environment --null --unset= --chdir= @",
  xargs: "-0rtxoep -n= -L= -I= -i -d= -P= -s= -E= -a= --null --max-args= --max-lines= --no-run-if-empty --delimiter= --max-procs= --max-chars= --verbose --arg-file= --exit --open-tty --replace --replace= --eof= @",
  ionice: "-t -c= -n= -p= -P= -u= @", taskset: "-a -c --cpu-list @", chronic: "-ev @", unbuffer: "-p @", caffeinate: "-dimsu -t= -w= @", watch: "-bcdegpt -n= -q= --interval= --differences --no-title --beep --errexit --chgexit --color --precise @"
}

/** Interpreters and tools that are read-only only when asked for their version or help. */
const VERSION_ONLY = `node python python3 pypy pypy3 ruby perl php lua deno bun go cargo rustc gcc g++ clang clang++ cc make cmake java javac
  npm npx pnpm yarn pip pip3 uv uvx gem bundle poetry conda docker podman kubectl terraform tsc esbuild vite vitest jest eslint prettier`
  .trim()
  .split(/\s+/)

/** Programs read-only for some subcommands (the first argument), with those subcommands' options. */
const SUBCOMMANDS: Record<string, Record<string, string>> = {
  npm: { ls: "-alp --all --json --long --parseable --depth= --omit= --include= --prod --dev --global -g --workspaces", list: "-alp --all --json --long --parseable --depth= --omit= --prod --dev --global -g", why: "--json", explain: "--json", prefix: "-g", root: "-g" },
  pnpm: { ls: "-rP --depth= --json --long --parseable --prod --dev --recursive", list: "-rP --depth= --json --long --parseable --prod --dev --recursive", why: "--json" },
  yarn: { list: "--depth= --pattern=", why: "" },
  docker: { ps: "-aqs --all --quiet --size --no-trunc -f= --filter= --format= -n= --last= --latest -l", images: "-aq --all --quiet --no-trunc --digests -f= --filter= --format=", version: "--format= -f=", info: "--format= -f=", inspect: "-s --size --type= -f= --format=", logs: "-tf --follow --timestamps --details -n= --tail= --since= --until=" },
  podman: { ps: "-aqs --all --quiet --size --no-trunc -f= --filter= --format=", images: "-aq --all --quiet --no-trunc -f= --filter= --format=", version: "--format= -f=", info: "--format= -f=" },
  apt: { list: "-a --installed --upgradable --all-versions --manual-installed", search: "--names-only --full", show: "-a --all-versions", policy: "" },
  "apt-cache": { search: "-n --names-only --full", show: "", policy: "", depends: "", rdepends: "", madison: "", showpkg: "" },
  dpkg: { "-l": "", "-L": "", "-s": "", "-S": "", "--list": "", "--listfiles": "", "--status": "", "--search": "", "--print-architecture": "" },
  "dpkg-query": { "-l": "", "-L": "", "-s": "", "-S": "", "-W": "-f= --showformat=", "--list": "", "--show": "-f= --showformat=" },
  brew: { list: "-1l --versions --formula --cask", info: "--json --json= --installed", search: "", "--prefix": "", config: "", deps: "--tree --installed" },
  pip: { list: "-eou --outdated --uptodate --editable --format= --not-required --user", show: "-f --files", freeze: "--all -l --local --user" },
  pip3: { list: "-eou --outdated --uptodate --editable --format= --not-required --user", show: "-f --files", freeze: "--all -l --local --user" },
  cargo: { tree: "-ei --depth= --edges= --invert= --prefix= --no-dedupe --duplicates --format=", metadata: "--format-version= --no-deps --offline" },
  go: { version: "-m -v", env: "-json", list: "-m -json -f= -e -deps" }
}

const SPEC_CACHE = new Map<string, OptionSpec>()
const specFor = (name: string): OptionSpec | undefined => {
  const cached = SPEC_CACHE.get(name)
  if (cached !== undefined) return cached
  const text = SPECS[name] ?? (VERSION_ONLY.includes(name) || /^python[0-9.]+$/.test(name) ? "version" : undefined)
  if (text === undefined) return undefined
  const parsed = spec(text)
  SPEC_CACHE.set(name, parsed)
  return parsed
}

/** Programs whose handler reads their whole argument list itself and applies the allowlist there. */
const SELF_VETTED = new Set(["git", "find", "gfind", "sed", "gsed"])

const VERSION_WORDS = new Set(["--version", "-v", "-V", "--help", "-h", "-version", "-VV", "version", "help"])

const refuse = (a: Analyzer, reason: string): void => a.raise("medium", "execute", reason)

/** Applies the allowlist to a call its handler judged read-only. */
export const vetReadOnlyCall = (a: Analyzer, call: Call): void => {
  const builtin = BUILTINS[call.base]
  if (builtin !== undefined) {
    builtinGlobs(a, call)
    return builtin(a, call)
  }
  if (SELF_VETTED.has(call.base)) return
  if (call.base === "lsof") {
    const problem = lsofCacheProblem(call.args)
    if (problem !== undefined) return refuse(a, `lsof: ${problem}`)
  }
  const subcommands = SUBCOMMANDS[call.base]
  const sub = call.args[0]?.value
  if (subcommands !== undefined && sub !== undefined && subcommands[sub] !== undefined) {
    const key = `${call.base} ${sub}`
    let subSpec = SPEC_CACHE.get(key)
    if (subSpec === undefined) SPEC_CACHE.set(key, (subSpec = spec(subcommands[sub] ?? "")))
    const problem = vetOptions(a, subSpec, call.base, call.args.slice(1))
    if (problem !== undefined) refuse(a, `${call.base} ${sub}: ${problem}`)
    return
  }
  const found = specFor(call.base)
  if (found === undefined) return refuse(a, `${call.base} is not on the read-only allowlist`)
  if (found.versionOnly) {
    if (call.args.length === 0 || !call.args.every((arg) => VERSION_WORDS.has(arg.value ?? ""))) refuse(a, `${call.base} is read-only only for --version or --help`)
    return
  }
  const problem = vetOptions(a, found, call.base, call.args)
  if (problem !== undefined) refuse(a, `${call.base}: ${problem}`)
}

/**
 * lsof's options read, but `-D b|u` builds or updates its device cache file, at a path given with
 * it, where the platform keeps one (not Linux): a `-D` anywhere in a letter group, or a word only
 * known at run time, asks.
 */
const lsofCacheProblem = (args: ReadonlyArray<Arg>): string | undefined => {
  for (const arg of args) {
    const values = arg.value !== undefined ? [arg.value] : arg.candidates?.map((candidate) => candidate.value)
    if (values === undefined) return `an argument only known at run time (${arg.raw}) may be -D, which writes the device cache`
    if (values.some((v) => v === "--")) return undefined
    if (values.some((v) => /^-[^-]*D/.test(v))) return "-D may build or update the device cache file"
  }
  return undefined
}

/** What one option word does: allowed alone, allowed taking the next word as its value, ends the options, or a problem. */
type OptionVerdict = "flag" | "takes-next" | "stops" | { readonly problem: string }

/** Judges `v`, a word starting with `-` other than `-` and `--`, against the spec. */
const judgeOption = (found: OptionSpec, v: string): OptionVerdict => {
  if (found.any) return "flag"
  if (found.numeric && /^-[0-9]+[a-z]?$/.test(v)) return "flag"
  if (v.startsWith("--")) {
    const eq = v.indexOf("=")
    const name = v.slice(2, eq < 0 ? undefined : eq)
    if (found.stops.has(`--${name}`)) return "stops"
    if (found.longValued.has(name)) return eq < 0 && !found.long.has(name) ? "takes-next" : "flag"
    if (found.long.has(name) && eq < 0) return "flag"
    return { problem: `the option --${name} is not known to be read-only` }
  }
  if (found.stops.has(v.slice(0, 2))) return "stops"
  for (let j = 1; j < v.length; j++) {
    const letter = v[j] as string
    if (found.valued.includes(letter)) return j === v.length - 1 ? "takes-next" : "flag"
    if (!found.flags.includes(letter)) return { problem: `the option -${letter} is not known to be read-only` }
  }
  return "flag"
}

/** A word bash may expand into several, some of which may start with `-`: a glob, or a loop variable holding one. */
const mayExpand = (arg: Arg): boolean => arg.glob || arg.candidates?.some((candidate) => candidate.glob) === true

/**
 * The first argument the spec does not allow, described; undefined when all pass. `onGlob` hears
 * of every glob standing where the program still reads options.
 */
const optionProblem = (found: OptionSpec, args: ReadonlyArray<Arg>, onGlob?: (arg: Arg) => void): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Arg
    if (onGlob !== undefined && mayExpand(arg)) onGlob(arg)
    const values = arg.value !== undefined ? [arg.value] : arg.candidates?.map((candidate) => candidate.value)
    if (values === undefined) {
      if (found.any || found.wrapper) continue
      return `an argument only known at run time (${arg.raw}) may be an option`
    }
    for (const v of values) {
      if (v === "--") return undefined
      if (v === "-" || !v.startsWith("-")) {
        if (found.noPlus && v.startsWith("+")) return `the operand ${v} is a command`
        if (found.noPaths && v.includes("/")) return `the operand ${v} is a file it would render`
        if (found.wrapper) return undefined
        continue
      }
      const verdict = judgeOption(found, v)
      if (verdict === "stops") return undefined
      if (typeof verdict === "object") return verdict.problem
      if (verdict === "takes-next") {
        const value = args[++i]
        if (onGlob !== undefined && value !== undefined && mayExpand(value)) onGlob(value)
      }
    }
  }
  return undefined
}

/**
 * A name a glob expands to, standing where the program reads options: harmless when the spec
 * allows it as an option on its own (not one that takes the next word, which may be any match, nor
 * one that ends the options to run a command), or as an operand.
 */
const harmlessMatch =
  (found: OptionSpec) =>
  (name: string): boolean => {
    if (name.startsWith("+")) return !found.noPlus
    if (name === "-" || name === "--") return true
    return judgeOption(found, name) === "flag"
  }

/**
 * Programs none of whose options (listed or not) runs a program or writes, per their GNU and BSD
 * manuals: a file name read as one of their options is harmless (`du -sh *`). Programs whose spec
 * is `*` are such programs too.
 */
const OPTIONS_NEVER_RUN_OR_WRITE = new Set(["du", "stat", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "shasum"])

/** Asks the analyzer to list the globs where the program reads options (unless every option is harmless). */
const vetOptions = (a: Analyzer, found: OptionSpec, program: string, args: ReadonlyArray<Arg>): string | undefined => {
  const harmless = found.any || OPTIONS_NEVER_RUN_OR_WRITE.has(program)
  return optionProblem(found, args, harmless ? undefined : (arg) => a.optionGlob(arg, program, harmlessMatch(found)))
}

// ---------------------------------------------------------------- builtins that evaluate text

type Vet = (a: Analyzer, call: Call) => void

/** A variable name the builtin assigns (`read NAME`, `printf -v NAME`…). */
const assignsName = (a: Analyzer, arg: Arg | undefined, exported: boolean): void => {
  if (arg === undefined) return
  const text = arg.value
  if (text === undefined) return refuse(a, "assigns a variable whose name is only known at run time")
  const name = text.replace(/[[=].*$/s, "")
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return refuse(a, `assigns ${JSON.stringify(text)}, not a plain variable name`)
  const subscript = subscriptOf(text.split("=")[0] ?? "")
  if (subscript !== undefined) a.arithmetic(judgeSubscript(subscript))
  a.variableWrite(name, undefined, exported)
  a.taint(name)
}

/**
 * Globs a builtin may read as options: bash's builtins read options up to their first operand
 * (`printf *` with a file named `-vPATH` sets PATH); test and `[` read every word as a possible
 * operator, of which `-v` evaluates its operand's subscript.
 */
const builtinGlobs = (a: Analyzer, call: Call): void => {
  if (call.base === "test" || call.base === "[") {
    for (const arg of call.args) if (mayExpand(arg)) a.optionGlob(arg, call.base, (name) => name !== "-v")
    return
  }
  for (const arg of call.args) {
    if (arg.value === "--") return
    if (mayExpand(arg)) a.optionGlob(arg, call.base, () => false)
    if (arg.value === undefined || !/^[-+]/.test(arg.value)) return
  }
}

const letBuiltin: Vet = (a, call) => {
  for (const arg of call.args) {
    if (mayExpand(arg)) refuse(a, `evaluates the file names ${arg.raw} matches as arithmetic`)
    else if (arg.value === undefined) refuse(a, "evaluates arithmetic only known at run time")
    else a.arithmetic(judgeArithmetic(arg.value))
  }
}

const declarationBuiltin: Vet = (a, call) => {
  let exported = call.base === "export"
  let integer = false
  for (const arg of call.args) {
    const v = arg.value
    if (v === undefined) {
      refuse(a, "declares a variable only known at run time")
      continue
    }
    if (/^[-+][A-Za-z]+$/.test(v)) {
      if (v.includes("n")) refuse(a, "declares a name reference, which evaluates its target later")
      if (v.includes("f") && !v.includes("F") && call.base === "export") refuse(a, "exports a function")
      if (v.startsWith("-") && v.includes("x")) exported = true
      if (v.startsWith("-") && v.includes("i")) integer = true
      if (/[^aAfFgilnprtuxF]/.test(v.slice(1))) refuse(a, `${call.base}: the option ${v} is not known to be read-only`)
      continue
    }
    const eq = v.indexOf("=")
    const target = eq < 0 ? v : v.slice(0, eq).replace(/\+$/, "")
    const value = eq < 0 ? undefined : v.slice(eq + 1)
    const name = target.replace(/\[.*$/s, "")
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      refuse(a, `${call.base} ${JSON.stringify(v)} is not a plain declaration`)
      continue
    }
    const subscript = subscriptOf(target)
    if (subscript !== undefined) a.arithmetic(judgeSubscript(subscript))
    if (integer && value !== undefined) a.arithmetic(judgeArithmetic(value))
    // `export NAME` of a variable assigned earlier exports that value.
    a.variableWrite(name, value ?? a.knownValue(name), exported)
    if (value === undefined || integer || !/^-?[0-9]+$/.test(value)) a.taint(name)
  }
}

const readBuiltin: Vet = (a, call) => {
  const names: Array<Arg> = []
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i] as Arg
    const v = arg.value
    if (v !== undefined && /^-[a-zA-Z]+$/.test(v)) {
      for (const letter of v.slice(1)) {
        if ("adnNptui".includes(letter)) {
          if (letter === "a") names.push(call.args[i + 1] as Arg)
          i++
          break
        }
        if (!"ers".includes(letter)) refuse(a, `read: the option -${letter} is not known to be read-only`)
      }
      continue
    }
    names.push(arg)
  }
  for (const name of names.length === 0 ? [] : names) assignsName(a, name, false)
}

const printfBuiltin: Vet = (a, call) => {
  const first = call.args[0]?.value
  if (first === "-v") assignsName(a, call.args[1], false)
  else if (first !== undefined && first.startsWith("-v") && first.length > 2) assignsName(a, { ...(call.args[0] as Arg), value: first.slice(2) }, false)
  else if (call.args[0] !== undefined && first === undefined) refuse(a, "printf's first argument is only known at run time (it may be -v)")
}

const mapfileBuiltin: Vet = (a, call) => {
  let name: Arg | undefined = undefined
  for (let i = 0; i < call.args.length; i++) {
    const v = call.args[i]?.value
    if (v === undefined) return refuse(a, "mapfile's arguments are only known at run time")
    if (/^-[CcdnOsu]$/.test(v)) {
      if (v === "-C") refuse(a, "mapfile -C runs a callback")
      i++
      continue
    }
    if (v.startsWith("-C")) refuse(a, "mapfile -C runs a callback")
    if (/^-/.test(v) && v !== "-t") continue
    if (v !== "-t") name = call.args[i]
  }
  assignsName(a, name ?? { value: "MAPFILE", raw: "MAPFILE", glob: false, net: false, runtime: false }, false)
}

const testBuiltin: Vet = (a, call) => {
  call.args.forEach((arg, index) => {
    if (arg.value !== "-v") return
    const operand = call.args[index + 1]
    if (operand === undefined) return
    if (operand.value === undefined) return refuse(a, "tests a variable whose name is only known at run time")
    if (mayExpand(operand)) return refuse(a, `tests the variables named by the files ${operand.raw} matches, whose subscripts bash evaluates`)
    const subscript = subscriptOf(operand.value)
    if (subscript !== undefined) a.arithmetic(judgeSubscript(subscript))
  })
}

const hashBuiltin: Vet = (a, call) => {
  if (call.args.some((arg) => arg.value === undefined || /^-[a-zA-Z]*p/.test(arg.value))) refuse(a, "hash -p makes a command name run another program")
}

const historyBuiltin: Vet = (a, call) => {
  if (call.args.length > 1 || (call.args[0] !== undefined && !/^[0-9]+$/.test(call.args[0].value ?? ""))) refuse(a, "history reads or writes the history file")
}

const SET_FLAGS = /^[-+][euxvfCbhBHmnT]+$/
const SET_OPTIONS = new Set(["errexit", "nounset", "xtrace", "verbose", "pipefail", "noglob", "noclobber", "errtrace", "functrace", "notify", "braceexpand", "hashall"])
const setBuiltin: Vet = (a, call) => {
  for (let i = 0; i < call.args.length; i++) {
    const v = call.args[i]?.value
    if (v === undefined) return refuse(a, "set's arguments are only known at run time")
    if (v === "--" || v === "-") return
    if (v === "-o" || v === "+o") {
      const option = call.args[i + 1]?.value
      if (option !== undefined && !SET_OPTIONS.has(option)) refuse(a, `set -o ${option} is not known to be read-only`)
      i++
      continue
    }
    if (SET_FLAGS.test(v)) continue
    if (/^[-+]/.test(v)) return refuse(a, `set ${v} is not known to be read-only`)
    return
  }
}

const SHOPT_NAMES = new Set(["extglob", "nullglob", "globstar", "dotglob", "nocaseglob", "nocasematch", "failglob", "globasciiranges", "lastpipe", "inherit_errexit", "xpg_echo"])
const shoptBuiltin: Vet = (a, call) => {
  for (const arg of call.args) {
    const v = arg.value
    if (v === undefined) return refuse(a, "shopt's arguments are only known at run time")
    if (/^-[supqo]+$/.test(v)) continue
    if (!SHOPT_NAMES.has(v)) refuse(a, `shopt ${v} is not known to be read-only`)
  }
}

const getoptsBuiltin: Vet = (a, call) => assignsName(a, call.args[1], false)

/** `unset 'GROUPS[$(cmd)]'` evaluates the subscript of an array bash or the line made, running `cmd`. */
const unsetBuiltin: Vet = (a, call) => {
  for (const arg of call.args) {
    if (mayExpand(arg)) refuse(a, `unsets the names ${arg.raw} matches, whose subscripts bash evaluates`)
    else if (arg.value === undefined) refuse(a, "unsets a name only known at run time")
    else {
      const subscript = subscriptOf(arg.value)
      if (subscript !== undefined) a.arithmetic(judgeSubscript(subscript))
    }
  }
}

/** `wait -p NAME` assigns NAME (and evaluates its subscript). */
const waitBuiltin: Vet = (a, call) => {
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i] as Arg
    const v = arg.value
    if (v === undefined) return refuse(a, "wait's arguments are only known at run time (one may be -p NAME)")
    if (v === "--" || !v.startsWith("-")) return
    const p = v.indexOf("p")
    if (/^-[fn]*p/.test(v)) assignsName(a, p < v.length - 1 ? { ...arg, value: v.slice(p + 1) } : call.args[++i], false)
    else if (!/^-[fn]+$/.test(v)) refuse(a, `wait: the option ${v} is not known to be read-only`)
  }
}

const refuseAll =
  (reason: string): Vet =>
  (a) =>
    refuse(a, reason)

const BUILTINS: Record<string, Vet> = {
  let: letBuiltin,
  declare: declarationBuiltin,
  typeset: declarationBuiltin,
  local: declarationBuiltin,
  readonly: declarationBuiltin,
  export: declarationBuiltin,
  read: readBuiltin,
  printf: printfBuiltin,
  mapfile: mapfileBuiltin,
  readarray: mapfileBuiltin,
  test: testBuiltin,
  "[": testBuiltin,
  hash: hashBuiltin,
  history: historyBuiltin,
  set: setBuiltin,
  shopt: shoptBuiltin,
  getopts: getoptsBuiltin,
  unset: unsetBuiltin,
  wait: waitBuiltin,
  tput: (a, call) => {
    const problem = optionProblem(spec("-T= -x"), call.args)
    if (problem !== undefined) refuse(a, `tput: ${problem}`)
    // init and reset may run the terminal description's initialization program.
    if (call.args.some((arg) => arg.value === undefined || arg.value === "init" || arg.value === "reset")) refuse(a, "tput init and reset may run a program")
  },
  compgen: refuseAll("compgen expands and runs completion code"),
  complete: refuseAll("complete registers code to run"),
  compopt: refuseAll("compopt changes completion"),
  enable: refuseAll("enable loads or switches builtins")
}
