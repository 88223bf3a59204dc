/** The database's name: the login title and the header (SPEC §2). */
export const DATABASE_TITLE = 'National Risk Assessment Database';
/** SPEC §9: the app waits this long after a successful login before going to /. */
export const LOGIN_REDIRECT_MS = 1000;
