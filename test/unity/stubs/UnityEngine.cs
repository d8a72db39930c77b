// The UnityEngine types the Unity package (Runtime/ and Samples~/) uses, as signatures only: enough for Debian's
// mono mcs to compile the package's C# outside Unity (unity-csharp.test.ts). A type the package starts using must be
// added here, with Unity's signature.
using System;

namespace UnityEngine
{
    public class Object
    {
    }

    public class Component : Object
    {
    }

    public class Behaviour : Component
    {
    }

    public class MonoBehaviour : Behaviour
    {
    }

    public static class Debug
    {
        public static void Log(object message) { }
        public static void LogWarning(object message) { }
        public static void LogError(object message) { }
        public static void LogException(Exception exception) { }
    }

    public static class JsonUtility
    {
        public static string ToJson(object obj) { throw new NotImplementedException(); }
        public static T FromJson<T>(string json) { throw new NotImplementedException(); }
    }

    public static class GUILayout
    {
        public static void Label(string text, params GUILayoutOption[] options) { }
        public static bool Button(string text, params GUILayoutOption[] options) { throw new NotImplementedException(); }
    }

    public sealed class GUILayoutOption
    {
    }
}

namespace AOT
{
    [AttributeUsage(AttributeTargets.Method)]
    public class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }
}
