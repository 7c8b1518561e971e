/** Strings and the columns a terminal gives them, for the width tests under Node and under Bun. */
export interface WidthCase {
  readonly kind: string
  readonly text: string
  readonly width: number
}

export const widthTable: ReadonlyArray<WidthCase> = [
  { kind: "ascii", text: "hello", width: 5 },
  { kind: "empty", text: "", width: 0 },
  { kind: "emoji", text: "✅", width: 2 },
  { kind: "emoji", text: "👍", width: 2 },
  { kind: "emoji", text: "🫠", width: 2 },
  { kind: "emoji with VS16", text: "❤️", width: 2 },
  { kind: "text-style symbol", text: "❤", width: 1 },
  { kind: "keycap", text: "1️⃣", width: 2 },
  { kind: "skin tone", text: "👍🏽", width: 2 },
  { kind: "skin tone", text: "👋🏿", width: 2 },
  { kind: "ZWJ family", text: "👨‍👩‍👧", width: 2 },
  { kind: "ZWJ family", text: "👨‍👩‍👧‍👦", width: 2 },
  { kind: "ZWJ with skin tone", text: "👩🏾‍💻", width: 2 },
  { kind: "ZWJ", text: "🧑‍🤝‍🧑", width: 2 },
  { kind: "ZWJ flag", text: "🏳️‍🌈", width: 2 },
  { kind: "flag", text: "🇫🇷", width: 2 },
  { kind: "flag", text: "🇯🇵", width: 2 },
  { kind: "CJK", text: "日本語", width: 6 },
  { kind: "Hangul", text: "한국어", width: 6 },
  { kind: "fullwidth", text: "ＡＢ", width: 4 },
  { kind: "halfwidth katakana", text: "ｶﾀｶﾅ", width: 4 },
  { kind: "combining mark", text: "e\u0301", width: 1 },
  { kind: "combining marks", text: "a\u0308\u0323", width: 1 },
  { kind: "combining marks", text: "Z\u0351\u0364\u036b", width: 1 },
  { kind: "Thai vowel mark", text: "\u0e01\u0e34", width: 1 },
  { kind: "zero-width space", text: "\u200b", width: 0 },
  { kind: "soft hyphen", text: "\u00ad", width: 0 },
  { kind: "UI symbols", text: "●⎿✻⏹…─│╭›•", width: 10 },
  { kind: "mixed", text: "ok ✅ done", width: 10 },
  { kind: "mixed", text: "👨‍👩‍👧 family", width: 9 },
  { kind: "mixed", text: "日本 and 🇫🇷", width: 11 }
]
