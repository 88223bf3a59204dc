import type { BatchUploadResult, IngestJobState, RecordImportPlan, UserIdentity } from '@nrad/contracts';
import type { Scope } from '@nrad/service-kit';
import mongoose, { type Connection, type Model, Schema } from 'mongoose';

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
  /** The file's SHA-256 (hex), kept after the file is deleted: what was uploaded (issue 37). */
  sha256?: string;
  /** When the file's chunks were deleted (its job ended, or it was kept its INGEST_KEEP_HOURS). */
  fileDeletedAt?: Date;
}

interface ChunkDoc {
  uploadId: string;
  n: number;
  data: Buffer;
  /** When it was stored (absent on chunks stored before issue 37). */
  createdAt?: Date;
}

/** The states of an upload whose job has not ended: they count against its agency's queued jobs. */
export const ACTIVE_STATES = ['queued', 'processing'] as const satisfies readonly IngestJobState[];

/** What a sweep of kept files did. */
export interface FileSweep {
  /** Files deleted: of ended jobs, and of uploads not moved on for the keeping time. */
  deleted: number;
  /** Uploads whose job had not ended in the keeping time, now failed. */
  abandoned: number;
  /** Chunks of no upload (a crash between storing a file and its upload) deleted. */
  orphans: number;
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
    sha256: { type: String },
    fileDeletedAt: { type: Date },
  },
  { collection: 'uploads', versionKey: false, minimize: false },
);
// An agency's jobs under way, and its uploads of the last day (its limits, issue 37).
uploadSchema.index({ organization: 1, state: 1 });
uploadSchema.index({ organization: 1, createdAt: 1 });

const chunkSchema = new Schema<ChunkDoc>(
  {
    uploadId: { type: String, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date },
  },
  { collection: 'upload_chunks', versionKey: false },
);
chunkSchema.index({ uploadId: 1, n: 1 }, { unique: true });

/** A query operator written here (the connection's sanitizeFilter refuses those of input). */
const op = <T extends object>(o: T): T => mongoose.trusted(o) as T;

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
    const now = new Date();
    const docs: ChunkDoc[] = [];
    for (let at = 0, n = 0; at < file.length; at += CHUNK_BYTES, n++) {
      docs.push({ uploadId: upload._id, n, data: Buffer.from(file.subarray(at, at + CHUNK_BYTES)), createdAt: now });
    }
    if (docs.length) await this.chunks.insertMany(docs, { ordered: true });
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

  /**
   * The stored file of an upload of the scope's own (not another organization's), whole; null when
   * it is no longer kept (its job ended, or the keeping time passed).
   */
  async file(scope: Scope, id: string): Promise<Buffer | null> {
    const upload = await this.get(scope, id);
    if (upload === OUTSIDE_SCOPE) throw new Error(`upload ${id} is outside ${scope}`);
    if (upload?.fileDeletedAt) return null;
    const chunks = await this.chunks.find({ uploadId: id }).sort({ n: 1 }).lean<ChunkDoc[]>();
    if (chunks.length === 0 && (upload?.size ?? 0) > 0) return null;
    return Buffer.concat(chunks.map((c) => bytesOf(c.data)));
  }

  /** Deletes an upload's file (its job ended): the chunks, then the mark that it is gone. */
  async deleteFile(scope: Scope, id: string): Promise<void> {
    if ((await this.get(scope, id)) === OUTSIDE_SCOPE) throw new Error(`upload ${id} is outside ${scope}`);
    await this.chunks.deleteMany({ uploadId: id });
    await this.uploads.updateOne({ _id: id, ...scope.ownFilter() }, { $set: { fileDeletedAt: new Date() } });
  }

  /** Moves an upload of the scope's own on (another organization's is left as it is). */
  async progress(
    scope: Scope,
    id: string,
    change: Partial<Pick<UploadDoc, 'state' | 'processedRows' | 'totalRows' | 'plan' | 'result'>>,
  ) {
    await this.uploads.updateOne({ _id: id, ...scope.ownFilter() }, { $set: { ...change, updatedAt: new Date() } });
  }

  /** How many uploads of the organization have a job not ended (queued or processing). */
  activeCount(scope: Scope): Promise<number> {
    return this.uploads.countDocuments({ ...scope.ownFilter(), state: op({ $in: [...ACTIVE_STATES] }) });
  }

  /** The sizes and times of the organization's uploads since `since`, oldest first. */
  async sizesSince(scope: Scope, since: Date): Promise<Array<{ size: number; createdAt: Date }>> {
    return this.uploads
      .find({ ...scope.ownFilter(), createdAt: op({ $gte: since }) }, { _id: 0, size: 1, createdAt: 1 })
      .sort({ createdAt: 1 })
      .lean<Array<{ size: number; createdAt: Date }>>();
  }

  /**
   * Deletes the files no longer kept (issue 37) of the scope's uploads: those of ended jobs still
   * here (the job's own deletion did not happen: a crash between), and those of uploads not moved
   * on since `keptSince` (a failed job kept for a retry; a job that never ended, which is failed
   * now). For every organization's scope (`Scope.system`), also the chunks of no upload (a crash
   * between storing a file and its upload) stored before `keptSince` or at no known time.
   */
  async sweep(scope: Scope, keptSince: Date): Promise<FileSweep> {
    const due = await this.uploads
      .find(
        {
          ...scope.ownFilter(),
          fileDeletedAt: op({ $exists: false }),
          $or: [{ state: 'completed' }, { updatedAt: op({ $lt: keptSince }) }],
        },
        { _id: 1, state: 1 },
      )
      .lean<Array<Pick<UploadDoc, '_id' | 'state'>>>();
    let abandoned = 0;
    for (const upload of due) {
      await this.chunks.deleteMany({ uploadId: upload._id });
      const stuck = (ACTIVE_STATES as readonly string[]).includes(upload.state);
      if (stuck) abandoned++;
      const now = new Date();
      await this.uploads.updateOne(
        { _id: upload._id },
        { $set: { fileDeletedAt: now, ...(stuck ? { state: 'failed', updatedAt: now } : {}) } },
      );
    }
    let orphans = 0;
    if (scope.organization === null) {
      const owners: string[] = await this.chunks.distinct('uploadId');
      const known = new Set(
        (await this.uploads.find({ _id: op({ $in: owners }) }, { _id: 1 }).lean<Array<{ _id: string }>>()).map(
          (u) => u._id,
        ),
      );
      const unknown = owners.filter((id) => !known.has(id));
      if (unknown.length) {
        const gone = await this.chunks.deleteMany({
          uploadId: op({ $in: unknown }),
          $or: [{ createdAt: op({ $lt: keptSince }) }, { createdAt: op({ $exists: false }) }],
        });
        orphans = gone.deletedCount;
      }
    }
    return { deleted: due.length, abandoned, orphans };
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
