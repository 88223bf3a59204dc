/**
 * The antd components the shell's own screens use (sign-in, register, the frame): they load with
 * the app. Everything else comes from `@nrad/shared/ui`, loaded with the first remote that needs
 * it. Screens import antd only through these two modules (ADR 0008).
 */

export type { FormInstance, FormProps } from 'antd';
export { Button, ConfigProvider, Flex, Form, Input, Layout, Popover, Radio, Spin, Tag, theme } from 'antd';
