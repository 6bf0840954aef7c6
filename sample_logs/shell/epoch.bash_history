#1700000000
cd ~/project
#1700000005
git pull --rebase
#1700000042
pytest -x tests/
#1700000100
git commit -am "fix: handle empty input"
