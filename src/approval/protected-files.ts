/**
 * Files whose contents later run code without anyone asking: git's config and hooks (a later
 * `git status` runs core.fsmonitor or a hook), Crystal's own project folder, and the start-up
 * files of shells and tools (.bashrc, .envrc, .npmrc, a Python .pth…). A write to one of them, by
 * any tool, is high risk: never auto-approved in edit mode, asked for even in full mode. This is
 * the one list; the bash classifier and the edit/write tools both consult it.
 */

/** Start-up and configuration files read by shells, editors and tools when they start. */
const STARTUP_NAMES = new Set(
  `
  .bashrc .bash_profile .bash_login .bash_logout .bash_aliases .profile .zshrc .zshenv .zprofile .zlogin .zlogout .kshrc .mkshrc
  .cshrc .tcshrc .login .logout .inputrc .envrc .direnvrc .npmrc .yarnrc .yarnrc.yml .bunfig.toml .gitconfig .gitmodules
  .vimrc .exrc .nvimrc .gvimrc .ackrc .pythonrc .pythonstartup sitecustomize.py usercustomize.py .irbrc .pryrc .gemrc
  .perldl .lesskey .curlrc .wgetrc .netrc .pgpass .my.cnf .psqlrc .sqliterc .tmux.conf .screenrc .xinitrc .xsession .xprofile
  `
    .trim()
    .split(/\s+/)
)

/** Files in a git directory that say which programs git runs or where its repository is. */
const GIT_CONFIG_FILES = new Set(["config", "config.worktree", "commondir", "gitdir"])

/** Directories everything under which is protected. */
const PROTECTED_DIRS = new Set([".crystal", ".husky", ".direnv"])

/** Why writing this path plants code for later, or undefined. Takes an absolute or relative path. */
export const protectedFileReason = (file: string): string | undefined => {
  const segments = file.split(/[\\/]+/).filter((segment) => segment !== "" && segment !== ".")
  const name = segments[segments.length - 1]
  if (name === undefined) return undefined
  const gitAt = segments.lastIndexOf(".git")
  if (gitAt >= 0) {
    if (gitAt === segments.length - 1) return "replaces a .git directory or link, which git obeys"
    // .git/config, .git/hooks/…, and the same inside .git/modules/NAME/ (submodules, whose names may
    // hold slashes, and their submodules in modules/NAME/modules/SUB/) and worktrees.
    const inside = segments.slice(gitAt + 1)
    const nested = inside[0] === "modules" || inside[0] === "worktrees"
    if (inside[0] === "hooks" || (nested && inside.includes("hooks"))) return "changes git hooks, which git runs"
    if ((inside.length === 1 || nested) && GIT_CONFIG_FILES.has(name)) return "changes git configuration, which can make git run programs"
  }
  if (segments.some((segment) => PROTECTED_DIRS.has(segment))) return `changes ${segments.find((segment) => PROTECTED_DIRS.has(segment))}/, which runs or configures tools`
  if (STARTUP_NAMES.has(name)) return `changes ${name}, a start-up file that runs code`
  if (name.endsWith(".pth")) return "changes a Python .pth file, which runs code when Python starts"
  return undefined
}
