import type { BatchUploadResult, IngestJobState, RecordImportPlan, UserIdentity } from '@nrad/contracts';
import type { Scope } from '@nrad/service-kit';
import { type Connection, type Model, Schema } from 'mongoose';

/** A stored file is kept in chunks of this many bytes (well under any document size limit). */
export const CHUNK_BYTES = 1024 * 1024;

/** One upload: who sent which file, and how far its job is. The file itself is in `upload_chunks`. */
export interface UploadDoc {
  /** The upload id (also the BullMQ job id). */
  _id: string;
  organization: string;
  uploader: UserIdentity;
  fileName: string;
  kind: 'xlsx' | 'xls';
  size: number;
  createdAt: Date;
  updatedAt: Date;
  state: IngestJobState;
  processedRows: number;
  totalRows: number;
  /**
   * Where the job stops, as the records service planned it before the first row (docs/adr/0015):
   * a retried job follows the same plan.
   */
  plan?: RecordImportPlan;
  result?: BatchUploadResult;
}

interface ChunkDoc {
  uploadId: string;
  n: number;
  data: Buffer;
}

const uploadSchema = new Schema<UploadDoc>(
  {
    _id: { type: String, required: true },
    organization: { type: String, required: true },
    uploader: { type: Schema.Types.Mixed, required: true },
    fileName: { type: String, required: true },
    kind: { type: String, required: true },
    size: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    state: { type: String, required: true },
    processedRows: { type: Number, required: true },
    totalRows: { type: Number, required: true },
    plan: { type: Schema.Types.Mixed },
    result: { type: Schema.Types.Mixed },
  },
  { collection: 'uploads', versionKey: false, minimize: false },
);

const chunkSchema = new Schema<ChunkDoc>(
  {
    uploadId: { type: String, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
  },
  { collection: 'upload_chunks', versionKey: false },
);
chunkSchema.index({ uploadId: 1, n: 1 }, { unique: true });

/** The ingest service's own store: uploads and their files. Only this module touches it. */
export class UploadStore {
  readonly uploads: Model<UploadDoc>;
  readonly chunks: Model<ChunkDoc>;

  constructor(conn: Connection) {
    this.uploads = conn.model<UploadDoc>('Upload', uploadSchema);
    this.chunks = conn.model<ChunkDoc>('UploadChunk', chunkSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.uploads.init(), this.chunks.init()]);
  }

  /**
   * Stores the file, then its upload (so an upload never names a file that is not all there). An
   * upload is its uploader's organization's own (ADMIN's too): `Scope.owns` (docs/adr/0020).
   */
  async create(scope: Scope, upload: Omit<UploadDoc, 'createdAt' | 'updatedAt'>, file: Uint8Array): Promise<void> {
    if (!scope.owns(upload.organization)) throw new Error(`an upload of ${upload.organization} is outside ${scope}`);
    const docs: ChunkDoc[] = [];
    for (let at = 0, n = 0; at < file.length; at += CHUNK_BYTES, n++) {
      docs.push({ uploadId: upload._id, n, data: Buffer.from(file.subarray(at, at + CHUNK_BYTES)) });
    }
    if (docs.length) await this.chunks.insertMany(docs, { ordered: true });
    const now = new Date();
    await this.uploads.create({ ...upload, createdAt: now, updatedAt: now });
  }

  /**
   * An upload of the scope's own by id; `OUTSIDE_SCOPE` for another organization's (the caller
   * records the attempt), null for none.
   */
  async get(scope: Scope, id: string): Promise<UploadDoc | typeof OUTSIDE_SCOPE | null> {
    const doc = await this.uploads.findById(id).lean<UploadDoc>();
    if (doc && !scope.owns(doc.organization)) return OUTSIDE_SCOPE;
    return doc;
  }

  /** The stored file of an upload of the scope's own (not another organization's), whole. */
  async file(scope: Scope, id: string): Promise<Buffer> {
    if ((await this.get(scope, id)) === OUTSIDE_SCOPE) throw new Error(`upload ${id} is outside ${scope}`);
    const chunks = await this.chunks.find({ uploadId: id }).sort({ n: 1 }).lean<ChunkDoc[]>();
    return Buffer.concat(chunks.map((c) => bytesOf(c.data)));
  }

  /** Moves an upload of the scope's own on (another organization's is left as it is). */
  async progress(
    scope: Scope,
    id: string,
    change: Partial<Pick<UploadDoc, 'state' | 'processedRows' | 'totalRows' | 'plan' | 'result'>>,
  ) {
    await this.uploads.updateOne({ _id: id, ...scope.ownFilter() }, { $set: { ...change, updatedAt: new Date() } });
  }
}

/** What `UploadStore.get` answers for another organization's upload (not its content). */
export const OUTSIDE_SCOPE = 'outside scope';

/** A stored binary as bytes (a lean read gives the driver's `Binary`, not a Buffer). */
function bytesOf(data: unknown): Buffer {
  if (Buffer.isBuffer(data)) return data;
  const binary = data as { buffer?: Uint8Array };
  if (binary.buffer instanceof Uint8Array) return Buffer.from(binary.buffer);
  throw new Error('a stored file chunk is not binary data');
}
