"""Judge models on the run engine, and explanation quality (EQ): a judge model scores each
explanation of a verdict run from 0 to 10.

EQ, piece by piece (this package holds every piece that is neither maths, storage nor display):

    task.py         the judge task: what the judge is shown (prompts/judge_explanation.toml)
                    and how its answer is read (a score 0-10, else a judge parse failure)
    runs.py         starting a judge run (`workbench judge RUN --judge MODEL`, the metrics
                    view's j); it runs on the run engine like any other run
    scores.py       a run's EQ from one judge run: the mean with its interval, the 0-10
                    distribution, rubric violations, slices; the paired EQ of two runs
    calibration.py  judges against people: every judge run's and every person's scores of a
                    run's explanations (people score with e in the claim detail), and the
                    agreement of each pair (`workbench judge-agreement`)
    consistency.py  a judge against itself over repeats (`workbench judge-consistency`)

Where the layers put the rest: the maths (means, intervals, agreement, consistency) in
workbench/metrics/explanations.py and judge_consistency.py; the judgments and people's
scores in store/judging.py; drawing in workbench/render/explanations.py; the commands in
workbench/cli/judge_commands.py; a run's whole report, EQ beside its scores, in
workbench/reports/.

The other judge here, reformulation.py, labels a search run's consecutive query pairs
(specialization, generalization, exploration, repetition).
"""
