/// <reference types="bun" />
/**
 * Run with Bun (test/unit/tui/width.test.ts spawns it): prints, for each entry of the width table,
 * what Bun.stringWidth says and what src/tui/width.ts measures under Bun, as JSON.
 */
import { textWidth } from "../../src/tui/width.ts"
import { widthTable } from "./width-table.ts"

console.log(JSON.stringify(widthTable.map((entry) => ({ text: entry.text, bun: Bun.stringWidth(entry.text), module: textWidth(entry.text) }))))
