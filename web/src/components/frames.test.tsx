import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import ProjectFrame from './ProjectFrame';
import WizardFrame from './WizardFrame';

afterEach(() => void i18n.changeLanguage('en'));

const STEPS = [
  { key: 'a', label: 'First step' },
  { key: 'b', label: 'Second step' },
  { key: 'c', label: 'Last step' },
];

/** A three-step wizard whose second step refuses Next until its box is ticked. */
function Wizard({ onFinish, onCreateOnly, clickable }: { onFinish: () => void; onCreateOnly?: () => void; clickable?: boolean }) {
  const [step, setStep] = useState(0);
  const [ok, setOk] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <WizardFrame
      title="New thing"
      steps={STEPS.map((s, i) => ({ ...s, error: i === 1 && !!error }))}
      step={step}
      onStep={clickable ? setStep : undefined}
      onBack={() => setStep(step - 1)}
      onNext={() => {
        if (step === 1 && !ok) return setError('Tick the box');
        setError(null);
        setStep(step + 1);
      }}
      onFinish={onFinish}
      onCreateOnly={onCreateOnly}
      error={error}
    >
      {step === 1 && <input type="checkbox" aria-label="box" checked={ok} onChange={(e) => setOk(e.target.checked)} />}
    </WizardFrame>
  );
}

describe('WizardFrame', () => {
  it('titles each step, keeps Back and Next in place, stops on a step error and ends with Create only / Create and start', async () => {
    const finish = vi.fn();
    const only = vi.fn();
    const user = userEvent.setup();
    render(<Wizard onFinish={finish} onCreateOnly={only} />);
    expect(screen.getByRole('heading', { level: 1, name: 'New thing' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'First step' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Back' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Create and start' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByRole('heading', { level: 2, name: 'Second step' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    // refused: the message under the step, the step still shown
    expect(screen.getByTestId('wizard-error')).toHaveTextContent('Tick the box');
    expect(screen.getByRole('heading', { level: 2, name: 'Second step' })).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'box' }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByRole('heading', { level: 2, name: 'Last step' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Create only' }));
    expect(only).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Create and start' }));
    expect(finish).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByRole('heading', { level: 2, name: 'Second step' })).toBeInTheDocument();
  });

  it('offers only Create and start where the area has no separate start, and jumps by step name when allowed', async () => {
    const user = userEvent.setup();
    render(<Wizard onFinish={() => undefined} clickable />);
    await user.click(screen.getByRole('tab', { name: /Last step/ }));
    expect(screen.getByRole('heading', { level: 2, name: 'Last step' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create and start' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Create only' })).toBeNull();
  });

  it('speaks Japanese with the same buttons in the same places', async () => {
    await i18n.changeLanguage('ja');
    render(<Wizard onFinish={() => undefined} onCreateOnly={() => undefined} clickable />);
    expect(screen.getByRole('button', { name: '戻る' })).toBeDisabled();
    await userEvent.click(screen.getByRole('tab', { name: /Last step/ }));
    expect(screen.getByRole('button', { name: '作成して開始' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '作成のみ' })).toBeInTheDocument();
  });
});

describe('ProjectFrame', () => {
  function Page({ onDelete, fail }: { onDelete: () => Promise<void>; fail?: boolean }) {
    const [name, setName] = useState('Pump line 1');
    return (
      <ProjectFrame
        name={name}
        typeLabel="Time-series anomaly detection"
        state={<span>Ready</span>}
        facts={['pump.csv', null, '200 rows']}
        actions={<button>Train</button>}
        onRename={async (n) => {
          if (fail) throw new Error('refused');
          setName(n);
        }}
        onDelete={onDelete}
      >
        <p>sections</p>
      </ProjectFrame>
    );
  }

  it('heads the page with name, type · state · facts and the actions in one order', () => {
    render(<Page onDelete={async () => undefined} />);
    expect(screen.getByRole('heading', { level: 1, name: 'Pump line 1' })).toBeInTheDocument();
    expect(screen.getByTestId('project-facts')).toHaveTextContent('Time-series anomaly detectionReadypump.csv · 200 rows');
    const names = screen.getAllByRole('button').map((b) => b.textContent);
    expect(names).toEqual(['Train', 'Rename', 'Delete project']);
    expect(screen.getByText('sections')).toBeInTheDocument();
  });

  it('renames with a trimmed name and refuses an empty one', async () => {
    const user = userEvent.setup();
    render(<Page onDelete={async () => undefined} />);
    await user.click(screen.getByRole('button', { name: 'Rename' }));
    const dialog = screen.getByRole('dialog', { name: 'Rename' });
    const field = within(dialog).getByRole('textbox', { name: 'Project name' });
    await user.clear(field);
    await user.type(field, '   ');
    expect(within(dialog).getByRole('button', { name: 'Rename' })).toBeDisabled();
    await user.clear(field);
    await user.type(field, '  Pump line 2 {Enter}');
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'Pump line 2' })).toBeInTheDocument());
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('keeps the dialog and what was typed when the server refuses the name', async () => {
    const user = userEvent.setup();
    render(<Page onDelete={async () => undefined} fail />);
    await user.click(screen.getByRole('button', { name: 'Rename' }));
    const field = within(screen.getByRole('dialog')).getByRole('textbox', { name: 'Project name' });
    await user.clear(field);
    await user.type(field, 'Other');
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Rename' }));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    expect(field).toHaveValue('Other');
    // the page behind the open dialog is hidden from the accessibility tree, not gone
    expect(screen.getByRole('heading', { level: 1, name: 'Pump line 1', hidden: true })).toBeInTheDocument();
  });

  it('deletes only after confirming', async () => {
    const user = userEvent.setup();
    const del = vi.fn(async () => undefined);
    render(<Page onDelete={del} />);
    await user.click(screen.getByRole('button', { name: 'Delete project' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('The project "Pump line 1", its models, reports and files will be deleted.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(del).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Delete project' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete project' }));
    await waitFor(() => expect(del).toHaveBeenCalledTimes(1));
  });
});
