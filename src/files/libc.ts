/**
 * The C library through bun:ffi, for what Node has no call for (prctl, waitpid, signal, tzset and
 * localtime_r): undefined off Bun, on platforms without a known libc name, or when none answers.
 * Loaded synchronously with Bun's `import.meta.require`, so start-up gains no chunk and no await.
 */
export interface FfiSymbol {
  readonly args: ReadonlyArray<string>
  readonly returns: string
}

export interface Libc<S extends string> {
  readonly symbols: Record<S, (...args: ReadonlyArray<unknown>) => unknown>
  /** A pointer to a typed array's memory, for a symbol taking "ptr". */
  readonly ptr: (view: ArrayBufferView) => unknown
}

interface FfiModule {
  readonly dlopen: (name: string, symbols: Record<string, FfiSymbol>) => { readonly symbols: Record<string, (...args: ReadonlyArray<unknown>) => unknown> }
  readonly ptr: (view: ArrayBufferView) => unknown
}

const libcNames: Partial<Record<NodeJS.Platform, ReadonlyArray<string>>> = {
  linux: ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"],
  darwin: ["libSystem.B.dylib"]
}

export const openLibc = <S extends string>(symbols: Record<S, FfiSymbol>): Libc<S> | undefined => {
  const names = libcNames[process.platform]
  // import.meta.require is Bun's synchronous require; Node has none.
  const require = (import.meta as { readonly require?: (id: string) => unknown }).require
  if (names === undefined || (globalThis as { readonly Bun?: unknown }).Bun === undefined || require === undefined) return undefined
  let ffi: FfiModule
  try {
    ffi = require("bun:ffi") as FfiModule
  } catch {
    return undefined
  }
  for (const name of names) {
    try {
      const opened = ffi.dlopen(name, symbols)
      return { symbols: opened.symbols as Libc<S>["symbols"], ptr: ffi.ptr }
    } catch {
      // Not this library's name: try the next.
    }
  }
  return undefined
}
