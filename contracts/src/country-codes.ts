/**
 * Country names → ISO 3166 alpha-3 → numeric codes (the dashboard's world map). Not in the
 * package's index: `@nrad/contracts` is a federated singleton sent whole with the app's first
 * load, and only the dashboard remote needs these tables (import `@nrad/contracts/country-codes`).
 */
export { countryToAlpha3 } from './country-lookup.ts';
export * from './generated/country-codes.ts';
