import { z } from 'zod';

/**
 * What people type (issue 37): names and free text hold no character a reader cannot see or that
 * changes how the text around it reads — control characters, unpaired surrogates, text-direction
 * controls, zero-width characters — and are stored in one Unicode form (NFC), so "Zoë" typed with
 * a combining diaeresis is the same name as "Zoë" typed with a precomposed one.
 */

/** Why a character is refused. */
export type HiddenCharacterKind = 'line break' | 'tab' | 'control' | 'surrogate' | 'direction' | 'zero-width';

/** A refused character: its code point (a surrogate's own, for an unpaired one) and why. */
export interface HiddenCharacter {
  codePoint: number;
  kind: HiddenCharacterKind;
}

/** How each kind is named in a message, after the code point. */
const KIND_TEXT: Record<HiddenCharacterKind, string> = {
  'line break': 'a line break',
  tab: 'a tab',
  control: 'a control character',
  surrogate: 'an unpaired surrogate',
  direction: 'a text-direction control',
  'zero-width': 'a zero-width character',
};

/**
 * One group per kind, in the order a match is named: line breaks (CR LF, LF, U+2028/U+2029, a lone
 * CR), tabs, C0 and C1 controls and DEL, unpaired surrogates, text-direction controls (U+061C,
 * LRM/RLM, embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069) and zero-width
 * characters (ZWSP, ZWNJ, ZWJ, U+2060–U+2064, U+180E, U+FEFF).
 */
const HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /(\r\n|\n|\u2028|\u2029|\r)|(\t)|([\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f])|([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])|([\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069])|([\u180e\u200b-\u200d\u2060-\u2064\ufeff])/g;
const KINDS: HiddenCharacterKind[] = ['line break', 'tab', 'control', 'surrogate', 'direction', 'zero-width'];
/**
 * Every code unit HIDDEN can match, for one quick test first: most text has none of them, and
 * every field of every record a batch upload imports is checked (the scan is several times slower).
 */
const CANDIDATE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]/;

/**
 * The first character of `text` that a user-typed field refuses, or undefined when there is none.
 * A multi-line field (`multiline`) keeps line feeds, CR LF pairs, tabs and U+2028/U+2029 (a lone CR,
 * which rewrites a line where it is shown, is a control character there); a single-line one keeps
 * none of them.
 */
export function findHiddenCharacter(text: string, multiline = false): HiddenCharacter | undefined {
  if (!CANDIDATE.test(text)) return undefined;
  for (const m of text.matchAll(HIDDEN)) {
    const kind = KINDS[m.slice(1).findIndex(Boolean)] as HiddenCharacterKind;
    const codePoint = m[0].charCodeAt(0);
    if (multiline && kind === 'line break' && m[0] === '\r') return { codePoint, kind: 'control' };
    if (!(multiline && (kind === 'line break' || kind === 'tab'))) return { codePoint, kind };
  }
  return undefined;
}

/** "U+202E". */
export const codePointText = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The message for a refused character, after the field's label if it has one:
 * "Suspect name must not contain invisible or control characters (found U+202E, a text-direction
 * control)"; a line break in a single-line field: "Suspect name must be a single line (found
 * U+000A, a line break)".
 */
export function hiddenCharacterMessage(found: HiddenCharacter, label?: string): string {
  const what =
    found.kind === 'line break' ? 'must be a single line' : 'must not contain invisible or control characters';
  return `${label ? `${label} ` : ''}${what} (found ${codePointText(found.codePoint)}, ${KIND_TEXT[found.kind]})`;
}

export interface SafeTextOptions {
  /** The field's name at the start of the message ("Suspect name"); none: the message starts "must". */
  label?: string;
  /** A multi-line field (free text, a message): line feeds, CR LF, tabs and U+2028/U+2029 are kept. */
  multiline?: boolean;
}

/**
 * A user-typed text field: `schema` (a `z.string()` with the field's own checks and messages) that
 * also refuses hidden characters (findHiddenCharacter) with a message naming the first one found,
 * and yields the text in NFC.
 *
 * The text is put in NFC before the field's own checks, so a length limit counts the characters
 * stored; the refusal is checked after them, so a field's existing message (required, too long)
 * comes first where both apply.
 */
export function safeText<T extends z.ZodString>(schema: T, options: SafeTextOptions = {}): T {
  const refuseHidden = z.superRefine<string>((text, ctx) => {
    const found = findHiddenCharacter(text, options.multiline);
    if (found) ctx.addIssue({ code: 'custom', message: hiddenCharacterMessage(found, options.label) });
  });
  // zod only appends checks; NFC must run before the field's own, so the list is rebuilt around them.
  return schema.clone({
    ...schema.def,
    checks: [z.normalize('NFC'), ...(schema.def.checks ?? []), refuseHidden],
  });
}
