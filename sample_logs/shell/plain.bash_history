ls -la
cd /srv/app
git status
make test 2>&1 | tee test.log
echo "héllo wörld"

   
vim README.md
