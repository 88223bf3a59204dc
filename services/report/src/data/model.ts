import { type ReportFigures, TEMPLATE_MODEL } from '@nrad/contracts';
import OpenAI from 'openai';
import type { ReportConfig } from '../config.ts';
import { reportMessages } from '../domain/prompt.ts';
import { templateReport } from '../domain/template.ts';

/** Who writes a report from its figures: a model, or the template. */
export interface ReportWriter {
  /** The model's name, or "template". */
  readonly model: string;
  write(figures: ReportFigures, parameters: string | null): Promise<string>;
}

/**
 * A model that did not write the report, with a message fit to show and store (never the key, the
 * server's body or a stack). `retry`: whether a later attempt of the job may fare better (the
 * server could not be reached); a refused key, an unknown model, a timeout or a rate limit that
 * outlasted the SDK's own retries are final.
 */
export class ModelError extends Error {
  override name = 'ModelError';
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** The template: no model configured. */
export const templateWriter: ReportWriter = {
  model: TEMPLATE_MODEL,
  write: async (figures, parameters) => templateReport(figures, parameters),
};

/** The SDK's errors as ModelErrors (the most specific classes first: they extend one another). */
function modelErrorOf(err: unknown, model: string, timeoutSeconds: number): ModelError {
  if (err instanceof ModelError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(`The AI model did not answer within ${timeoutSeconds} s`, false);
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return new ModelError('The AI model server could not be reached', true);
  }
  if (err instanceof OpenAI.AuthenticationError || err instanceof OpenAI.PermissionDeniedError) {
    return new ModelError(`The AI model server refused the configured key (${err.status})`, false);
  }
  if (err instanceof OpenAI.NotFoundError) {
    return new ModelError(`The AI model server does not know the model "${model}" (404)`, false);
  }
  if (err instanceof OpenAI.RateLimitError) {
    return new ModelError('The AI model server is rate limiting requests (429); try again later', false);
  }
  if (err instanceof OpenAI.APIError) {
    return new ModelError(`The AI model server answered ${err.status ?? 'an error'}`, false);
  }
  return new ModelError('The AI model could not write the report', false);
}

/**
 * A model behind the OpenAI SDK's chat completions (OpenAI or any compatible server): the SDK
 * times each request out after OPENAI_TIMEOUT_SECONDS and retries 408/409/429/5xx and dropped
 * connections OPENAI_MAX_RETRIES times with exponential backoff (honouring Retry-After).
 */
export function openAiWriter(config: ReportConfig, fetchImpl?: typeof fetch): ReportWriter {
  const model = config.OPENAI_MODEL;
  if (!model) throw new Error('no model configured');
  const client = new OpenAI({
    // A local server (vLLM, Ollama, llama.cpp) needs no key, but the SDK insists on one.
    apiKey: config.OPENAI_API_KEY ?? 'no-key',
    ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
    timeout: config.OPENAI_TIMEOUT_SECONDS * 1000,
    maxRetries: config.OPENAI_MAX_RETRIES,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return {
    model,
    async write(figures, parameters) {
      try {
        const completion = await client.chat.completions.create({
          model,
          // No token limit or temperature: their names and ranges differ between servers and model
          // families (max_tokens vs max_completion_tokens), and each server's default fits a report.
          messages: reportMessages(figures, parameters),
        });
        const text = completion.choices[0]?.message?.content?.trim();
        if (!text) throw new ModelError('The AI model answered without a report', false);
        return `${text}\n`;
      } catch (err) {
        throw modelErrorOf(err, model, config.OPENAI_TIMEOUT_SECONDS);
      }
    },
  };
}

/** The writer the configuration names: the model when OPENAI_MODEL is set, else the template. */
export const writerFor = (config: ReportConfig): ReportWriter =>
  config.OPENAI_MODEL ? openAiWriter(config) : templateWriter;
