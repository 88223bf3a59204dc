import { routes } from '@nrad/contracts';
import { callApi, Flex, Input, pageStyle, Spin, Tag } from '@nrad/shared';
import { Alert, Card, Table, type TableProps, Typography } from '@nrad/shared/ui';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';

/** The OpenAPI document's parts this page reads (GET /api/openapi.json, docs/adr/0019). */
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface Document {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

interface Row {
  key: string;
  method: string;
  path: string;
  operation: Operation;
}

const METHOD_COLORS: Record<string, string> = { get: 'blue', post: 'green', put: 'orange', delete: 'red' };

export const API_REFERENCE_TITLE = 'API Reference';

/** A JSON Schema as indented text. */
function SchemaText({ schema }: { schema: unknown }) {
  return (
    <pre style={{ fontSize: 12, margin: 0, maxHeight: 320, overflow: 'auto' }}>{JSON.stringify(schema, null, 2)}</pre>
  );
}

/** One operation opened: its parameters, body and answers. */
function OperationDetails({ operation }: { operation: Operation }) {
  const parameters = operation.parameters ?? [];
  const body = Object.entries(operation.requestBody?.content ?? {});
  return (
    <Flex vertical gap={12}>
      {operation.description && <Typography.Text>{operation.description}</Typography.Text>}
      <div>
        <Typography.Title level={5}>Parameters</Typography.Title>
        {parameters.length === 0 ? (
          <Typography.Text type="secondary">None</Typography.Text>
        ) : (
          <ul>
            {parameters.map((p) => (
              <li key={`${p.in}:${p.name}`}>
                <code>{p.name}</code> ({p.in}
                {p.required ? ', required' : ''}) <SchemaText schema={p.schema} />
              </li>
            ))}
          </ul>
        )}
      </div>
      {body.map(([type, content]) => (
        <div key={type}>
          <Typography.Title level={5}>Request body ({type})</Typography.Title>
          <SchemaText schema={content.schema} />
        </div>
      ))}
      <div>
        <Typography.Title level={5}>Responses</Typography.Title>
        {Object.entries(operation.responses ?? {}).map(([status, answer]) => (
          <div key={status}>
            <Typography.Text strong>{status}</Typography.Text> {answer.description}
            {Object.entries(answer.content ?? {}).map(([type, content]) => (
              <div key={type}>
                <Typography.Text type="secondary">{type}</Typography.Text>
                <SchemaText schema={content.schema} />
              </div>
            ))}
          </div>
        ))}
      </div>
    </Flex>
  );
}

/**
 * The API's reference (route /api-reference): the OpenAPI document the gateway serves, generated
 * from the route declarations, as a table of paths and methods; a row opens to its parameters,
 * body and answers with their schemas. Bundled with the app: nothing is loaded from elsewhere.
 */
export default function ApiReference() {
  const doc = useQuery<Document>({
    queryKey: [routes.gateway.openapi.path],
    queryFn: async () => (await callApi(routes.gateway.openapi)) as Document,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [filter, setFilter] = useState('');
  const rows = useMemo<Row[]>(() => {
    const out: Row[] = [];
    for (const [path, operations] of Object.entries(doc.data?.paths ?? {})) {
      for (const [method, operation] of Object.entries(operations)) {
        out.push({ key: `${method} ${path}`, method, path, operation });
      }
    }
    const wanted = filter.trim().toLowerCase();
    return wanted
      ? out.filter((r) => `${r.method} ${r.path} ${r.operation.summary ?? ''}`.toLowerCase().includes(wanted))
      : out;
  }, [doc.data, filter]);

  const columns: TableProps<Row>['columns'] = [
    {
      title: 'Method',
      dataIndex: 'method',
      width: 100,
      render: (method: string) => <Tag color={METHOD_COLORS[method]}>{method.toUpperCase()}</Tag>,
    },
    { title: 'Path', dataIndex: 'path', render: (path: string) => <code>{path}</code> },
    { title: 'Summary', key: 'summary', render: (_, row) => row.operation.summary },
    { title: 'Service', key: 'service', width: 110, render: (_, row) => row.operation.tags?.join(', ') },
  ];

  return (
    <Flex vertical gap={16} style={pageStyle}>
      <Typography.Title level={2}>{API_REFERENCE_TITLE}</Typography.Title>
      <Card>
        <Typography.Paragraph>
          {doc.data?.info?.description ?? 'The API of NRAD.'} The document itself:{' '}
          <a href={routes.gateway.openapi.path}>{routes.gateway.openapi.path}</a>
          {doc.data?.info?.version ? ` (version ${doc.data.info.version})` : ''}.
        </Typography.Paragraph>
        <Input
          aria-label="Filter routes"
          placeholder="Filter by method, path or summary"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          allowClear
        />
      </Card>
      {doc.isError && <Alert type="error" message="The API description could not be loaded." />}
      {doc.isPending ? (
        <Spin />
      ) : (
        <Table<Row>
          rowKey="key"
          size="small"
          columns={columns}
          dataSource={rows}
          pagination={false}
          expandable={{ expandedRowRender: (row) => <OperationDetails operation={row.operation} /> }}
        />
      )}
    </Flex>
  );
}
