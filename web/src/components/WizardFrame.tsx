import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Step from '@mui/material/Step';
import StepButton from '@mui/material/StepButton';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import PageHeader from './PageHeader';

export interface WizardStep {
  key: string;
  label: string;
  /** a step Next or Finish found wrong: marked in the stepper */
  error?: boolean;
}

export interface WizardFrameProps {
  title: ReactNode;
  subtitle?: ReactNode;
  steps: readonly WizardStep[];
  step: number;
  /** Next: the wizard checks the step and moves on (or says what is wrong). */
  onNext: () => void;
  onBack: () => void;
  /** Clicking a step's name jumps to it; without it the stepper is only shown. */
  onStep?: (i: number) => void;
  /** Creates the project and starts its work: the one final action of every wizard. */
  onFinish: () => void;
  /** Creates the project without starting it (areas whose project page has its own Train button). */
  onCreateOnly?: () => void;
  nextDisabled?: boolean;
  finishDisabled?: boolean;
  busy?: boolean;
  /** What is wrong on this step, under its fields. */
  error?: ReactNode;
  /** Shown while busy, above the progress bar. */
  busyText?: ReactNode;
  /** The step's body. */
  children: ReactNode;
}

/**
 * The frame of every wizard (issue 33): page header, stepper, the step's title and body, then Back on the left and
 * Next — or on the last step Create only / Create and start — on the right, in the same places in every area.
 */
export default function WizardFrame(p: WizardFrameProps) {
  const { t } = useTranslation();
  const last = p.step === p.steps.length - 1;
  const current = p.steps[p.step];
  return (
    <Box>
      <PageHeader title={p.title} subtitle={p.subtitle} />
      <Stepper nonLinear={!!p.onStep} activeStep={p.step} alternativeLabel sx={{ mb: 3 }}>
        {p.steps.map((s, i) => (
          <Step key={s.key} completed={p.onStep ? false : i < p.step}>
            {p.onStep ? (
              <StepButton onClick={() => p.onStep!(i)} optional={s.error ? <Typography variant="caption" color="error">!</Typography> : undefined}>
                {s.label}
              </StepButton>
            ) : (
              <StepLabel error={s.error}>{s.label}</StepLabel>
            )}
          </Step>
        ))}
      </Stepper>
      <Paper variant="outlined" component="section" aria-labelledby="wizard-step-title" sx={{ p: 2.5, mb: 2 }}>
        <Typography id="wizard-step-title" variant="h6" component="h2" sx={{ mb: 2 }}>
          {current?.label}
        </Typography>
        {p.children}
        {p.error && (
          <Alert severity="error" sx={{ mt: 2 }} data-testid="wizard-error">
            {p.error}
          </Alert>
        )}
        {p.busy && (
          <Box sx={{ mt: 2 }}>
            {p.busyText && <Typography variant="body2">{p.busyText}</Typography>}
            <LinearProgress aria-label={t('wizard.working')} />
          </Box>
        )}
      </Paper>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
        <Button disabled={p.step === 0 || p.busy} onClick={p.onBack}>
          {t('wizard.back')}
        </Button>
        <Box sx={{ flex: 1 }} />
        {!last && (
          <Button variant="contained" disabled={p.nextDisabled} onClick={p.onNext}>
            {t('wizard.next')}
          </Button>
        )}
        {last && p.onCreateOnly && (
          <Button variant="outlined" disabled={p.busy || p.finishDisabled} onClick={p.onCreateOnly}>
            {t('wizard.createOnly')}
          </Button>
        )}
        {last && (
          <Button variant="contained" disabled={p.busy || p.finishDisabled} onClick={p.onFinish}>
            {t('wizard.finish')}
          </Button>
        )}
      </Box>
    </Box>
  );
}
