/**
 * antd components for the remotes' screens, beyond those of `@nrad/shared` (ui-core.ts). A
 * federated singleton of its own, built with `@nrad/shared` in the shell, so the shell does not
 * load these before a screen needs them, and every remote still gets the one antd the shell set
 * up — one theme, one toast queue (ADR 0008). Add a component here when a screen needs one;
 * import antd nowhere else.
 */

export type { DescriptionsProps, MenuProps, TableColumnsType, TableProps } from 'antd';
export {
  Alert,
  Card,
  Checkbox,
  Col,
  Descriptions,
  Divider,
  Dropdown,
  Empty,
  InputNumber,
  Menu,
  Modal,
  Progress,
  Row,
  Select,
  Space,
  Table,
  Tooltip,
  Typography,
} from 'antd';
export { AMOUNT_RULES, AmountInput } from './amount-input.tsx';
