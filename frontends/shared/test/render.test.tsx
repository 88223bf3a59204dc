import { screen } from '@testing-library/react';
import { Button, Form, Input } from 'antd';
import { describe, expect, it } from 'vitest';
import { renderScreen } from './render.tsx';

/** The declarations of antd's component style rules in the document (not its CSS variables'). */
function componentDeclarations(): string[] {
  const sheets = [...document.querySelectorAll('style[data-cache-path]')].map((s) => s.textContent ?? '');
  return sheets.flatMap((css) => [...css.matchAll(/[{;]\s*([-a-z]+)\s*:/g)].map((m) => m[1] as string));
}

describe('renderScreen', () => {
  it("keeps antd's rules that hide an element: a hidden form item stays hidden from role queries", () => {
    renderScreen(
      <Form>
        <Form.Item label="Shown">
          <Input />
        </Form.Item>
        <Form.Item label="Kept back" hidden>
          <Input />
        </Form.Item>
      </Form>,
    );
    // antd hides it with a class (.ant-form-item-hidden { display: none }), not an attribute.
    const kept = document.querySelector('.ant-form-item-hidden') as HTMLElement;
    expect(kept.getAttribute('style')).toBeNull();
    expect(kept).not.toBeVisible();
    expect(getComputedStyle(kept).display).toBe('none');
    expect(screen.getAllByRole('textbox')).toHaveLength(1);
    expect(screen.getAllByRole('textbox', { hidden: true })).toHaveLength(2);
  });

  it("leaves out antd's declarations that no screen test can observe (layout, colours, fonts)", () => {
    renderScreen(
      <Button type="primary" disabled>
        Save
      </Button>,
    );
    const declared = componentDeclarations();
    expect(declared).toContain('display');
    expect(new Set(declared)).toEqual(
      new Set(declared.filter((p) => ['display', 'visibility', 'opacity', 'pointer-events'].includes(p))),
    );
    expect(declared).not.toContain('color');
    expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
  });
});
