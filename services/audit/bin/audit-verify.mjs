// `npm run audit:verify`: installs the npm packages first when needed (scripts/bootstrap.mjs), then
// walks the audit trail's hash chain (audit-verify.ts).
import { runTypeScript } from '../../../scripts/bootstrap.mjs';

await runTypeScript('services/audit/bin/audit-verify.ts');
