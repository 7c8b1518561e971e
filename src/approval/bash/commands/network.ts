/**
 * Commands that talk to the network (curl, wget, ssh, rsync to a host…) and containers (docker and
 * the like, whose mounts and namespaces reach the host).
 */
import * as path from "node:path"
import type { Analyzer, Arg, Handler } from "../types.ts"
import { literal, parse, words } from "../args.ts"

export const curl: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
    long: words(`
  output upload-file data data-binary data-raw data-urlencode data-ascii json form form-string header request user-agent user
  referer cookie cookie-jar config dump-header trace trace-ascii stderr output-dir cacert capath cert key max-time connect-timeout
  retry retry-delay retry-max-time proxy proxy-user url write-out range continue-at limit-rate interface resolve connect-to
  netrc-file unix-socket abstract-unix-socket libcurl local-port max-filesize variable time-cond speed-limit speed-time ftp-port
  quote telnet-option oauth2-bearer aws-sigv4 mail-from mail-rcpt
`)
  })
  a.network("downloads from or sends to the network")
  const outputDir = parsed.value("--output-dir")
  const urls = [...parsed.operands, ...parsed.values("--url")]
  a.inDir(outputDir, () => {
    for (const output of parsed.values("-o", "--output")) {
      if (output.value === "-") continue
      a.write(output)
      a.markDownloaded(output)
    }
    if (parsed.has("-O", "--remote-name", "--remote-name-all")) {
      for (const url of urls) {
        const name = remoteName(url)
        a.write(name)
        a.markDownloaded(name)
      }
    }
  })
  for (const file of parsed.values("-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl")) {
    if (file.value !== "-") a.write(file)
  }
  for (const file of parsed.values("-T", "--upload-file", "-K", "--config", "--cacert", "--cert", "--key", "--netrc-file")) {
    if (file.value !== "-") a.read(file)
  }
  for (const data of parsed.values("-d", "--data", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "-F", "--form")) {
    const value = data.value
    if (value === undefined) continue
    const match = /^(?:[^=@<]*=)?[@<](.+)$/.exec(value)
    if (match?.[1] !== undefined && match[1] !== "-") a.read(literal(match[1].replace(/;.*$/, ""), data))
  }
}

/** The file name `curl -O` / `wget` give a download: the URL's last path segment. */
const remoteName = (url: Arg): Arg => {
  const value = url.value
  if (value === undefined) return { ...url, runtime: false }
  const withoutQuery = value.replace(/[?#].*$/, "").replace(/^[a-z]+:\/\/[^/]*/i, "")
  const name = path.posix.basename(withoutQuery)
  return literal(name === "" || name === "/" ? "index.html" : name, url)
}

export const wget: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "OoaPiBtTweUQlARDXI",
    long: words(`
  output-document output-file append-output directory-prefix input-file base tries timeout wait execute user-agent quota level
  accept reject domains exclude-directories include-directories post-data post-file body-file body-data header user password
  http-user http-password load-cookies save-cookies ca-certificate certificate private-key method referer limit-rate
`)
  })
  a.network("downloads from the network")
  for (const file of parsed.values("-i", "--input-file", "--post-file", "--body-file", "--load-cookies", "--ca-certificate", "--certificate", "--private-key")) a.read(file)
  for (const file of parsed.values("-o", "--output-file", "-a", "--append-output", "--save-cookies")) a.write(file)
  if (parsed.has("--spider")) return
  const document = parsed.value("-O", "--output-document")
  if (document !== undefined) {
    if (document.value !== "-") {
      a.write(document)
      a.markDownloaded(document)
    }
    return
  }
  a.inDir(parsed.value("-P", "--directory-prefix"), () => {
    if (parsed.has("-r", "--recursive", "-m", "--mirror")) {
      a.workdir("write")
      return
    }
    for (const url of parsed.operands) {
      const name = remoteName(url)
      a.write(name)
      a.markDownloaded(name)
    }
  })
}

export const ssh: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "BbcDEeFIiJLlmOopQRSWw", stopAtOperand: true })
  for (const file of parsed.values("-i", "-F")) a.read(file)
  a.write(parsed.value("-E"))
  a.network(parsed.operands.length > 1 ? "runs commands on another host" : "connects to another host")
  // What runs on the other host is outside the workspace, whatever the command line names.
  a.system(parsed.operands.length > 1 ? "runs commands on another host" : "opens a shell on another host")
}

const isRemote = (arg: Arg): boolean => arg.value === undefined || /^[^/]*::|^rsync:\/\/|^[^/:]+:/.test(arg.value)

export const scp: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "cFiJlOoPS" })
  for (const file of parsed.values("-i", "-F")) a.read(file)
  if (parsed.has("-S")) a.raise("medium", "execute", "runs a transport program")
  a.network("copies files over the network")
  const operands = parsed.operands
  const destination = operands[operands.length - 1]
  for (const source of operands.slice(0, -1)) if (!isRemote(source)) a.read(source)
  if (destination !== undefined && !isRemote(destination)) a.write(destination)
}

export const rsync: Handler = (a, call) => {
  const parsed = parse(call.args, {
    short: "eBfTM",
    long: words(`
  rsh filter exclude include exclude-from include-from files-from log-file password-file backup-dir suffix chmod partial-dir
  compare-dest copy-dest link-dest temp-dir rsync-path timeout port out-format max-size min-size bwlimit chown usermap groupmap
`)
  })
  if (parsed.has("-e", "--rsh", "--rsync-path")) a.raise("medium", "execute", "runs a remote shell program")
  const operands = parsed.operands
  if (operands.some(isRemote)) a.network("copies files over the network")
  const dryRun = parsed.has("-n", "--dry-run", "--list-only")
  const destination = operands.length > 1 ? operands[operands.length - 1] : undefined
  const sources = operands.length > 1 ? operands.slice(0, -1) : operands
  const removesSources = parsed.has("--remove-source-files")
  for (const source of sources) {
    if (isRemote(source)) continue
    if (removesSources && !dryRun) a.write(source, "delete")
    else a.read(source)
  }
  if (destination !== undefined && !isRemote(destination) && !dryRun) {
    const deletes = parsed.opts.some((opt) => opt.name.startsWith("--delete"))
    if (deletes) a.raise("high", "write", "deletes files missing from the source")
    a.write(destination, deletes ? "force-delete" : "plain")
  }
  for (const file of parsed.values("--exclude-from", "--include-from", "--files-from", "--password-file")) a.read(file)
  a.write(parsed.value("--log-file"))
}

/** Commands that always talk to the network; the grant key adds their first operand. */
export const NETWORK = new Set(words(`
  nc ncat netcat socat telnet ftp lftp tftp sftp http https httpie xh xhs aria2c axel ping ping6 traceroute traceroute6 tracepath
  mtr dig nslookup host whois nmap ssh-keyscan ssh-copy-id mosh gh hub glab aws gcloud gsutil az kubectl helm terraform tofu pulumi
  heroku vercel netlify fly flyctl firebase ngrok cloudflared s3cmd rclone smbclient mail mailx sendmail mutt twine wrangler
  supabase doctl oc eksctl ansible ansible-playbook tldr youtube-dl yt-dlp wscat websocat grpcurl ipfs tailscale
`))

export const networkCommand: Handler = (a, call) => {
  a.network()
  const first = call.args.find((arg) => arg.value !== undefined && !arg.value.startsWith("-"))
  if (["gh", "glab", "hub", "aws", "gcloud", "az", "kubectl", "helm", "terraform", "tofu", "pulumi", "oc", "doctl", "flyctl", "fly", "vercel", "netlify", "heroku", "wrangler", "supabase"].includes(call.base)) {
    a.setKey(call, first?.value === undefined ? call.name : `${call.name} ${first.value}`)
  }
  if (["aria2c", "axel", "yt-dlp", "youtube-dl"].includes(call.base)) a.workdir("write")
}

const DOCKER_GROUPS = new Set(["compose", "container", "image", "volume", "network", "system", "buildx", "context", "builder", "manifest", "plugin", "secret", "service", "stack", "swarm", "node", "config", "trust", "scout"])
const DOCKER_READ = new Set(words(`
  ps images inspect logs version info stats top port diff history events ls df config show --version -v help --help
`))
const DOCKER_NETWORK = new Set(["pull", "push", "login", "logout", "search"])

export const docker: Handler = (a, call) => {
  const parsed = parse(call.args, { short: "Hcl", long: ["host", "context", "config", "log-level", "tlscacert", "tlscert", "tlskey"], stopAtOperand: true })
  const [subArg, secondArg] = parsed.operands
  const sub = subArg?.value
  if (sub === undefined) {
    if (subArg !== undefined) a.raise("high", "execute", "runs a container command only known at run time")
    return
  }
  const grouped = DOCKER_GROUPS.has(sub)
  const action = grouped ? secondArg?.value : sub
  a.setKey(call, grouped && action !== undefined ? `${call.name} ${sub} ${action}` : `${call.name} ${sub}`)
  if (action === undefined) return
  if (DOCKER_READ.has(action)) return
  if (DOCKER_NETWORK.has(action)) {
    a.network("uses a container registry")
    return
  }
  a.raise("high", "execute", "runs containers or changes container state")
  containerReach(a, call.args)
}

/** Host paths mounted into a container are written through it; host namespaces and privileges reach the whole machine. */
const containerReach = (a: Analyzer, args: ReadonlyArray<Arg>): void => {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]?.value
    if (v === undefined) continue
    if (/^--(privileged|pid=host|ipc=host|uts=host|userns=host|net=host|network=host|cap-add|device|security-opt)/.test(v) || ((v === "--net" || v === "--network" || v === "--pid") && args[i + 1]?.value === "host")) {
      a.system("gives a container access to the host")
      continue
    }
    let source: string | undefined = undefined
    if (v === "-v" || v === "--volume") source = args[++i]?.value?.split(":")[0]
    else if (v.startsWith("--volume=") || (v.startsWith("-v") && v.length > 2)) source = v.replace(/^(--volume=|-v)/, "").split(":")[0]
    else if (v === "--mount" || v.startsWith("--mount=")) {
      const spec = v === "--mount" ? args[++i]?.value : v.slice(8)
      source = spec === undefined ? undefined : /(?:^|,)(?:source|src)=([^,]*)/.exec(spec)?.[1]
      if (spec === undefined) a.system("mounts something only known at run time into a container")
    }
    if (source !== undefined && /^[/~.]/.test(source)) a.write(literal(source), "plain", "mounts a host directory into a container")
  }
}
