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
 * Every code unit that may be refused, for a quick test before the scan: C0 and C1 controls and
 * DEL, U+061C, U+180E, U+200B–U+200F, U+2028–U+202E, U+2060–U+2064, U+2066–U+2069, U+FEFF and
 * surrogates. Most text has none of these and is let through by this one test.
 */
const CANDIDATE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]/;

/** The kind of a BMP code unit that is refused wherever it stands (line breaks and tabs aside). */
function kindOf(unit: number): HiddenCharacterKind | undefined {
  if (unit <= 0x1f || (unit >= 0x7f && unit <= 0x9f)) return 'control';
  // Arabic letter mark, LRM/RLM, embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069).
  if (unit === 0x061c || unit === 0x200e || unit === 0x200f) return 'direction';
  if ((unit >= 0x202a && unit <= 0x202e) || (unit >= 0x2066 && unit <= 0x2069)) return 'direction';
  // ZWSP, ZWNJ, ZWJ, word joiner and the invisible operators, the Mongolian vowel separator, BOM.
  if ((unit >= 0x200b && unit <= 0x200d) || (unit >= 0x2060 && unit <= 0x2064)) return 'zero-width';
  if (unit === 0x180e || unit === 0xfeff) return 'zero-width';
  return undefined;
}

/**
 * The first character of `text` that a user-typed field refuses, or undefined when there is none.
 * A multi-line field (`multiline`) keeps line feeds, CR LF pairs, tabs and U+2028/U+2029; a
 * single-line one keeps none of them.
 */
export function findHiddenCharacter(text: string, multiline = false): HiddenCharacter | undefined {
  if (!CANDIDATE.test(text)) return undefined;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++; // a pair: one character outside the BMP (an emoji, a rare CJK character)
        continue;
      }
      return { codePoint: unit, kind: 'surrogate' };
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return { codePoint: unit, kind: 'surrogate' };
    if (unit === 0x0a || unit === 0x0d) {
      if (!multiline) return { codePoint: unit, kind: 'line break' };
      if (unit === 0x0a) continue;
      if (text.charCodeAt(i + 1) === 0x0a) {
        i++; // CR LF
        continue;
      }
      return { codePoint: unit, kind: 'control' }; // a lone CR rewrites a line where it is shown
    }
    if (unit === 0x09) {
      if (multiline) continue;
      return { codePoint: unit, kind: 'tab' };
    }
    if (unit === 0x2028 || unit === 0x2029) {
      if (multiline) continue;
      return { codePoint: unit, kind: 'line break' };
    }
    const kind = kindOf(unit);
    if (kind) return { codePoint: unit, kind };
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
