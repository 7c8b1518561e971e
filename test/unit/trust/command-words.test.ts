/** The words a trusted command line names, and its inline code (src/trust/command-words.ts). */
import { describe, expect, it } from "vitest"
import { fileWords, inlineCode } from "../../../src/trust/command-words.ts"

describe("the words of a trusted command line", () => {
  it.each([
    ["./a.sh;true", ["./a.sh", "true"]],
    ["./a.sh|cat", ["./a.sh", "cat"]],
    ['"./a.sh"', ["./a.sh"]],
    ["require('./x.cjs')", ["require", "./x.cjs"]],
    ["--require=./x.cjs", ["./x.cjs"]],
    ["$(cat ./list) > out.txt", ["cat", "./list", "out.txt"]],
    ["${env:HOME}/bin:./bin", ["/bin", "./bin"]],
    ["`./b.sh`&&./c.sh", ["./b.sh", "./c.sh"]]
  ])("%s names %j", (text, words) => {
    expect(fileWords(text)).toEqual(words)
  })

  it.each([
    [["sh", "-c", "./a.sh"], ["./a.sh"]],
    [["/bin/bash", "-ec", "x"], ["x"]],
    [["node", "--eval", "x", "-p", "y"], ["x", "y"]],
    [["python3.12", "-c", "x"], ["x"]],
    [["perl", "-ne", "x"], ["x"]],
    [["deno", "eval", "x"], ["x"]],
    [["env", "-i", "A=1", "sh", "-c", "x"], ["x"]],
    [["node", "server.mjs"], []],
    [["sh", "script.sh", "-c"], []],
    [["npx", "-c", "x"], []]
  ])("%j runs inline code %j", (argv, code) => {
    expect(inlineCode(argv)).toEqual(code)
  })
})
