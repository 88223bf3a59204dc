// `npm run build -w infra`: builds the embedded FerretDB server when missing or stale.
import { ensureFerretdbBinary } from '../ferretdb.ts';

console.log(ensureFerretdbBinary());
