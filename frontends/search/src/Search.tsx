import { type CaseRecord, COUNTRIES, CRIME_TYPES, type RecordSearch, routes } from '@nrad/contracts';
import {
  Button,
  Flex,
  Form,
  formatDate,
  Input,
  LinkedMark,
  type Page,
  RECORDS_KEY,
  recordAmount,
  recordsPage,
  ShowMore,
  useDeleteRecord,
  useMounted,
  usePagedRecords,
  useToast,
} from '@nrad/shared';
import {
  AMOUNT_RULES,
  AmountInput,
  Card,
  Checkbox,
  Col,
  Modal,
  Row,
  Select,
  Table,
  type TableColumnsType,
  Typography,
} from '@nrad/shared/ui';
import { useQueryClient } from '@tanstack/react-query';
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useRoute, useSearch } from 'wouter';
import { filtersFromQuery, queryOf, SEARCH_PATH, searchUrl } from './search-url.ts';

export const EMPTY_TEXT = 'No records found. Use the search filters above to find records.';

/** SPEC §9: the search list shows the kidnapping type with commas. */
export const crimeTypeLabel = (t: string) => t.replace('Kidnapping/illegal restraint', 'Kidnapping, illegal restraint');

interface SearchValues {
  freeText?: string;
  incidentNumber?: string;
  suspectName?: string;
  suspectDob?: string;
  incidentDate?: string;
  caseAmount?: string | null;
  seizedAmount?: string | null;
  confiscatedAmount?: string | null;
  crimeType?: string;
  country?: string;
  cyberAssisted?: boolean;
}

const searchKey = (filters: RecordSearch | null) => [RECORDS_KEY, 'search', filters] as const;

/** One page of POST /api/records/search: the first, or the one after `cursor`. */
const searchPage = (filters: RecordSearch, cursor?: string) => recordsPage(routes.records.search, cursor, filters);

/** The filters of POST /api/records/search: only those given (an unticked box is no filter). */
export function toFilters(v: SearchValues): RecordSearch {
  const text = (s?: string | null) =>
    s === null || s === undefined || String(s).trim() === '' ? undefined : String(s).trim();
  const filters: Record<string, unknown> = {
    freeText: text(v.freeText),
    incidentNumber: text(v.incidentNumber),
    suspectName: text(v.suspectName),
    suspectDob: text(v.suspectDob),
    incidentDate: text(v.incidentDate),
    caseAmount: text(v.caseAmount),
    seizedAmount: text(v.seizedAmount),
    confiscatedAmount: text(v.confiscatedAmount),
    crimeType: text(v.crimeType),
    country: text(v.country),
    cyberAssisted: v.cyberAssisted ? true : undefined,
  };
  return Object.fromEntries(Object.entries(filters).filter(([, x]) => x !== undefined)) as RecordSearch;
}

/**
 * The query string (without "?") of the address while it is /search, as the browser has it (wouter's
 * own search string is URI-decoded once, which would decode an escaped "%" twice). When the address
 * leaves /search (a row was opened) the screen is on its way out and keeps what it showed.
 */
function useSearchQuery(): string {
  const [onScreen] = useRoute(SEARCH_PATH);
  useSearch(); // a new render whenever the address's query changes
  const current = window.location.search.replace(/^\?/, '');
  const [kept, setKept] = useState(current);
  if (onScreen && current !== kept) setKept(current);
  return onScreen ? current : kept;
}

const SEARCH_FAILED = 'Failed to search records';

const NO_ROWS: readonly CaseRecord[] = [];

/**
 * The results: drawn again only when the rows, the loading state or the actions change — not on
 * every other change of the screen (the search button's state, the address, a toast): a page of
 * 100 rows of antd cells is most of the JavaScript a search costs in the browser.
 */
const ResultsTable = memo(function ResultsTable({
  rows,
  loading,
  onOpen,
  onDelete,
}: {
  rows: readonly CaseRecord[];
  loading: boolean;
  onOpen: (r: CaseRecord) => void;
  onDelete: (r: CaseRecord) => void;
}) {
  const columns = useMemo<TableColumnsType<CaseRecord>>(
    () => [
      { title: 'Incident #', dataIndex: 'incidentNumber' },
      { title: 'Suspect', dataIndex: 'suspectName' },
      { title: 'DOB', dataIndex: 'suspectDob', render: (v: string) => formatDate(v) },
      { title: 'Incident Date', dataIndex: 'incidentDate', render: (v: string) => formatDate(v) },
      { title: 'Amount', key: 'amount', align: 'right', render: (_, r) => recordAmount(r) },
      { title: 'Source', dataIndex: 'sourceOfRecord' },
      { title: 'International', dataIndex: 'internationalNexus', render: (v: boolean) => (v ? 'Yes' : 'No') },
      { title: 'Linked', key: 'linked', render: (_, r) => <LinkedMark record={r} /> },
      {
        title: 'Actions',
        key: 'actions',
        render: (_, r) => (
          <Flex gap={4} onClick={(e) => e.stopPropagation()}>
            <Button size="small" onClick={() => onOpen(r)}>
              View
            </Button>
            <Button size="small" danger onClick={() => onDelete(r)}>
              Delete
            </Button>
          </Flex>
        ),
      },
    ],
    [onOpen, onDelete],
  );
  return (
    <Table<CaseRecord>
      rowKey="id"
      dataSource={rows}
      pagination={false}
      loading={loading}
      locale={{ emptyText: EMPTY_TEXT }}
      scroll={SCROLL_X}
      onRow={(r) => ({ onClick: () => onOpen(r), style: ROW_STYLE })}
      columns={columns}
    />
  );
});
const SCROLL_X = { x: true } as const;
const ROW_STYLE = { cursor: 'pointer' } as const;

/**
 * SPEC §2 Search Records (/search). The address holds the last search run (`search-url.ts`): a
 * Search press puts its filters there (a new history entry), Clear goes back to plain /search, and
 * opening an address with filters — Back from a record, a bookmark, a link — fills the form and
 * shows that search's results (from the query cache when they are there, else asked again). The
 * "Found {n} records." toast answers a Search press only.
 */
export default function Search() {
  const [form] = Form.useForm<SearchValues>();
  const [, navigate] = useLocation();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [modal, modalHolder] = Modal.useModal();
  const deleteRecord = useDeleteRecord(modal);
  const query = useSearchQuery();
  const asked = useMemo(() => filtersFromQuery(query), [query]);
  // A Search press that failed hides the results under the address until the address changes: no
  // stale results under filters they do not answer.
  const [failedAt, setFailedAt] = useState<string | null>(null);
  const filters = failedAt === query ? null : asked;
  const [searching, setSearching] = useState(false);
  // The query string the form shows: filled from the address when the address moves elsewhere
  // (opening, Back, Forward), left alone when the form itself moved it (Search, Clear).
  const formShows = useRef<string | null>(null);
  const latestQuery = useRef(query);
  latestQuery.current = query;
  const live = useMounted();

  useLayoutEffect(() => {
    setFailedAt(null);
    if (formShows.current === query) return;
    const canonical = queryOf(asked);
    formShows.current = canonical;
    form.resetFields();
    if (asked) form.setFieldsValue(asked);
    // What was dropped (unknown, invalid) leaves the address too: a bookmark made now is what is shown.
    if (canonical !== query) navigate(searchUrl(asked), { replace: true });
  }, [query, asked, form, navigate]);

  const paged = usePagedRecords({
    queryKey: searchKey(filters),
    enabled: filters !== null,
    // A Search press fetches the first page just before the address changes: not again on mount,
    // nor on Back within the minute. Changes elsewhere (recordsChanged) still refetch it, stale or not.
    staleTime: 60_000,
    page: async (cursor) => {
      try {
        return await searchPage(filters ?? {}, cursor);
      } catch (error) {
        // The search of an opened address (a press says so itself, see `search`).
        if (!cursor) toast.error('Error', SEARCH_FAILED);
        throw error;
      }
    },
  });
  const { list: results, total } = paged;
  const rows = filters === null ? NO_ROWS : paged.rows;
  const openRecord = useCallback((r: CaseRecord) => navigate(`/record/${r.id}`), [navigate]);
  const deleteNow = useRef(deleteRecord);
  deleteNow.current = deleteRecord;
  const deleteRow = useCallback((r: CaseRecord) => deleteNow.current(r), []);

  /** One request per search: its first page fills the cache the table reads, then the toast says the total. */
  const search = async (values: SearchValues) => {
    const next = toFilters(values);
    setSearching(true);
    try {
      const first = await queryClient.fetchInfiniteQuery<Page<CaseRecord>>({
        queryKey: searchKey(next),
        initialPageParam: undefined,
        queryFn: ({ pageParam }) => searchPage(next, pageParam as string | undefined),
        getNextPageParam: (last: Page<CaseRecord>) => last.nextCursor,
        staleTime: 0,
      });
      setFailedAt(null);
      const nextQuery = queryOf(next);
      // A new history entry per new search (Back returns to the one before); none when the screen
      // was left meanwhile, or when the same search runs again.
      if (live.current && nextQuery !== latestQuery.current) {
        formShows.current = nextQuery;
        navigate(searchUrl(next));
      }
      toast.success('Success', `Found ${first.pages[0]?.total ?? 0} records.`);
    } catch {
      setFailedAt(latestQuery.current);
      toast.error('Error', SEARCH_FAILED);
    } finally {
      setSearching(false);
    }
  };

  const clear = () => {
    form.resetFields();
    setFailedAt(null);
    if (latestQuery.current !== '') {
      formShows.current = '';
      navigate(SEARCH_PATH);
    }
  };

  return (
    <Flex vertical gap={16}>
      {modalHolder}
      <Typography.Title level={2} style={{ margin: 0 }}>
        Search Records
      </Typography.Title>
      <Card>
        <Form<SearchValues> form={form} layout="vertical" onFinish={search} noValidate>
          <Form.Item label="Free Text Search" name="freeText">
            <Input placeholder="Words in the incident number, name, information, source, crime type or country" />
          </Form.Item>
          <Row gutter={16}>
            <Col xs={24} md={6}>
              <Form.Item label="Incident Number" name="incidentNumber">
                <Input />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item label="Suspect Name" name="suspectName">
                <Input />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item label="Date of Birth" name="suspectDob">
                <Input type="date" max="9999-12-31" />
              </Form.Item>
            </Col>
            <Col xs={24} md={6}>
              <Form.Item label="Incident Date" name="incidentDate">
                <Input type="date" max="9999-12-31" />
              </Form.Item>
            </Col>
            {(
              [
                ['caseAmount', 'Case Amount'],
                ['seizedAmount', 'Seized'],
                ['confiscatedAmount', 'Confiscated'],
              ] as const
            ).map(([name, label]) => (
              <Col xs={24} md={8} key={name}>
                <Form.Item label={label} name={name} rules={AMOUNT_RULES}>
                  <AmountInput />
                </Form.Item>
              </Col>
            ))}
            <Col xs={24} md={10}>
              <Form.Item label="Crime Type" name="crimeType">
                <Select
                  allowClear
                  showSearch={{ optionFilterProp: 'label' }}
                  virtual={false}
                  listHeight={320}
                  placeholder="Any crime type"
                  options={CRIME_TYPES.map((t) => ({ value: t, label: crimeTypeLabel(t) }))}
                />
              </Form.Item>
            </Col>
            <Col xs={24} md={10}>
              <Form.Item label="Nexus Country" name="country">
                <Select
                  allowClear
                  showSearch
                  placeholder="Any country"
                  options={COUNTRIES.map((c) => ({ value: c, label: c }))}
                />
              </Form.Item>
            </Col>
            <Col xs={24} md={4}>
              <Form.Item label=" " name="cyberAssisted" valuePropName="checked">
                <Checkbox>Cyber-Assisted</Checkbox>
              </Form.Item>
            </Col>
          </Row>
          <Flex gap={8} justify="end">
            <Button onClick={clear}>Clear</Button>
            <Button type="primary" htmlType="submit" loading={searching}>
              Search
            </Button>
          </Flex>
        </Form>
      </Card>
      <Card title={filters === null || !results.data ? 'Results' : `Results (${total})`}>
        <ResultsTable
          rows={rows}
          loading={filters !== null && results.isLoading}
          onOpen={openRecord}
          onDelete={deleteRow}
        />
        {filters !== null && <ShowMore paged={paged} />}
      </Card>
    </Flex>
  );
}
