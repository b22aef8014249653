[playlist]
NumberOfEntries=3
File2=music/02 Salt Wind.ogg
Title2=The Lanterns - Salt Wind
Length2=6
File1=music/03 AC-DC Current.opus
Title1=Volt & Ampère - AC/DC Current
Length1=6
File3=music/01 Stairway Down.mp3
Length3=-1
Version=2
