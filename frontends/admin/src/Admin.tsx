import { Button, Flex } from '@nrad/shared';
import { Col, Row, Typography } from '@nrad/shared/ui';
import { Link } from 'wouter';
import { AdminOnly } from './access.tsx';
import { AgencyCounts } from './panel/AgencyCounts.tsx';
import { AllRecords } from './panel/AllRecords.tsx';
import { ContactRequests } from './panel/ContactRequests.tsx';
import { OptionLists } from './panel/OptionLists.tsx';

/** Where the operations console is (another screen of this remote). */
export const OPERATIONS_PATH = '/admin/operations';

/**
 * SPEC §2 Admin Panel (/admin, ADMIN only): the agencies' counts, the option lists, the contact
 * requests inbox and All Agency Records; a way to the operations console. Side by side on a
 * desktop, one above the other on a phone.
 */
export default function Admin() {
  return (
    <AdminOnly>
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="center" wrap gap={8}>
          <Typography.Title level={2} style={{ margin: 0 }}>
            Admin Panel
          </Typography.Title>
          <Link href={OPERATIONS_PATH} asChild>
            <Button>Operations Console</Button>
          </Link>
        </Flex>
        <AgencyCounts />
        <Row gutter={[16, 16]}>
          <Col xs={24} xl={8}>
            <OptionLists />
          </Col>
          <Col xs={24} xl={16}>
            <ContactRequests />
          </Col>
        </Row>
        <AllRecords />
      </Flex>
    </AdminOnly>
  );
}
