/** The npm package `jaro-winkler` (CommonJS, no bundled types): the standard Jaro–Winkler similarity. */
declare module 'jaro-winkler' {
  /** Similarity in 0..1 (1 = equal), prefix scale 0.1 over at most 4 letters, boost above 0.7. */
  export default function jaroWinkler(a: string, b: string, options?: { caseSensitive?: boolean }): number;
}
