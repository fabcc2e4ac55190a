package unified

import "testing"

func TestDiff(t *testing.T) {
	t.Parallel()
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\n13"
	want := `--- a/f
+++ b/f
@@ -1,7 +1,7 @@
 1
 2
 3
-4
+four
 5
 6
 7
@@ -10,3 +10,4 @@
 10
 11
 12
+13
\ No newline at end of file
`
	if got := Diff("/f", []byte(a), []byte(b)); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if Diff("/f", []byte(a), []byte(a)) != "" {
		t.Fatal("diff of equal files is not empty")
	}
}
