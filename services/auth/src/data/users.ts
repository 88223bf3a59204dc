import { ORGANIZATION_CODES, type Organization, type PublicUser } from '@nrad/contracts';
import { isDuplicateKeyError } from '@nrad/service-kit';
import { type Connection, isValidObjectId, type Model, Schema, type Types } from 'mongoose';

interface UserDoc {
  _id: Types.ObjectId;
  name: string;
  /** As entered (trimmed). */
  email: string;
  /** Lower-cased email: unique, so "Ann@BPS.bm" and "ann@bps.bm" are one account. */
  emailKey: string;
  /** argon2id hash. Never leaves this module except to the password verifier. */
  passwordHash: string;
  role: string;
  organization: Organization;
  createdAt: Date;
  updatedAt: Date;
}

const userSchema = new Schema<UserDoc>(
  {
    name: { type: String, required: true },
    email: { type: String, required: true },
    emailKey: { type: String, required: true, unique: true },
    passwordHash: { type: String, required: true },
    role: { type: String, required: true },
    organization: { type: String, required: true, enum: ORGANIZATION_CODES },
  },
  { timestamps: true, collection: 'users' },
);

export const emailKey = (email: string) => email.trim().toLowerCase();

export function presentUser(u: UserDoc): PublicUser {
  return { id: u._id.toHexString(), name: u.name, email: u.email, organization: u.organization, role: u.role };
}

export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
}

/** The reads of the users collection (exported for the plan test: each uses an index). */
export const userQueries = {
  byEmail: (email: string) => ({ filter: { emailKey: emailKey(email) } }),
  byId: (id: string) => ({ filter: { _id: id } }),
};

/** The users collection. Only this module touches it. */
export class UserRepository {
  readonly model: Model<UserDoc>;

  constructor(conn: Connection) {
    this.model = conn.model<UserDoc>('User', userSchema);
  }

  /** Builds indexes (the unique email) before the service takes requests. */
  async init(): Promise<void> {
    await this.model.init();
  }

  async create(input: {
    name: string;
    email: string;
    passwordHash: string;
    role: string;
    organization: Organization;
  }): Promise<PublicUser> {
    try {
      const doc = await this.model.create({ ...input, email: input.email.trim(), emailKey: emailKey(input.email) });
      return presentUser(doc.toObject());
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new EmailTakenError();
      throw err;
    }
  }

  /** The user and their password hash, for credential checks only. */
  async findCredentials(email: string): Promise<{ user: PublicUser; passwordHash: string } | null> {
    const doc = await this.model.findOne(userQueries.byEmail(email).filter).lean<UserDoc>();
    return doc ? { user: presentUser(doc), passwordHash: doc.passwordHash } : null;
  }

  async findById(id: string): Promise<PublicUser | null> {
    if (!isValidObjectId(id)) return null;
    const doc = await this.model.findById(id).lean<UserDoc>();
    return doc ? presentUser(doc) : null;
  }

  async existsByEmail(email: string): Promise<boolean> {
    return (await this.model.countDocuments(userQueries.byEmail(email).filter)) > 0;
  }

  /** Renames; resolves with the updated user, or null when there is no such user. */
  async updateName(id: string, name: string): Promise<PublicUser | null> {
    if (!isValidObjectId(id)) return null;
    const result = await this.model.updateOne(userQueries.byId(id).filter, { $set: { name } });
    if (result.matchedCount === 0) return null;
    return this.findById(id);
  }
}
